import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { readMeta, SCHEMA_VERSION } from '../../../src/store/schema';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Statement } from 'sql.js';
import { buildFamilyTape, summariesFromRows } from './familyTape';
import { fingerprint, tempDir } from './helpers';

/** Written by schema 1 (test/fixtures/tapes): searched once midway, then two journal-only records. */
const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/tapes/schema-v1.tape.sqlite');

/** The snapshot's meta and the names of its indexes. */
async function schemaOf(file: string): Promise<{ meta: Map<string, string>; indexes: string[] }> {
  const db = new (await loadSqlJs()).Database(fs.readFileSync(file));
  try {
    const indexes = db.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")[0].values.map(([n]) => n as string);
    return { meta: readMeta(db), indexes };
  } finally {
    db.close();
  }
}

describe('schema versions and migrations', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'old.tape.sqlite');
    fs.copyFileSync(FIXTURE, file);
    fs.copyFileSync(journalPathOf(FIXTURE), journalPathOf(file));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** What the fixture holds, read through every kind of query. */
  function assertFixtureReadable(s: TapeStore): void {
    assert.deepStrictEqual(
      s.sessions().map((x) => [x.sessionId, x.entryCount]),
      [
        ['s1', 11],
        ['s2', 2],
      ],
    );
    assert.strictEqual(s.getEntry('s1', 11)?.payload.content, 'Now add an index on users.email');
    // Indexed by schema 1's first search, indexed by the migration, and written after the checkpoint.
    assert.deepStrictEqual(
      s.search('migrations').map((h) => [h.sessionId, h.entryId]),
      [['s1', 5]],
    );
    assert.deepStrictEqual(
      s.search('迁移').map((h) => h.entryId),
      [3],
    );
    assert.deepStrictEqual(
      s.search('ALTER').map((h) => h.entryId),
      [7],
    );
    assert.deepStrictEqual(
      s.search('wrong repo').map((h) => h.entryId),
      [8],
    );
    assert.deepStrictEqual(
      s.search('users.email').map((h) => [h.sessionId, h.entryId]),
      [['s1', 11]],
    );
    assert.deepStrictEqual(
      s.search('"second session"').map((h) => h.sessionId),
      ['s2'],
    );
  }

  it('a schema 1 tape opened read-only is migrated in memory only', async () => {
    const before = [fingerprint(file), fingerprint(journalPathOf(file))];
    const s = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(s.openReport.migratedFrom, 1);
    assertFixtureReadable(s);
    await s.close();
    assert.deepStrictEqual([fingerprint(file), fingerprint(journalPathOf(file))], before, 'nothing written');
  });

  it('a writable open migrates it for good: the next checkpoint writes the current schema', async () => {
    const s = await TapeStore.open(file);
    assert.strictEqual(s.openReport.migratedFrom, 1);
    assertFixtureReadable(s);
    await s.close();
    assert.deepStrictEqual((await schemaOf(FIXTURE)).indexes, ['entries_by_provenance', 'entries_by_session']);
    const { meta, indexes } = await schemaOf(file);
    assert.strictEqual(meta.get('schema_version'), String(SCHEMA_VERSION));
    assert.strictEqual(meta.has('fts_upto'), false);
    assert.deepStrictEqual(indexes, ['entries_by_link', 'entries_by_provenance', 'entries_by_session', 'entries_by_tool_call']);
    const again = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(again.openReport.migratedFrom, null);
    assertFixtureReadable(again);
    await again.close();
  });

  it('a tape of a newer schema is refused with a clear error and left untouched', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.run("UPDATE tape_meta SET value = '99' WHERE key = 'schema_version'");
    fs.writeFileSync(file, db.export());
    db.close();
    const before = fingerprint(file);
    for (const readOnly of [true, false]) {
      await assert.rejects(
        TapeStore.open(file, { readOnly }),
        (e: Error) =>
          e instanceof TapeFileError && e.message.includes(`was written by a newer Agent Tape (schema 99; this version reads schemas 1 to ${SCHEMA_VERSION})`),
      );
    }
    assert.deepStrictEqual(fingerprint(file), before);
    assert.ok(!fs.existsSync(`${file}.lock`), 'the refused writable open released its lock');
  });

  describe('schema 2 to 3: session summaries and the link index', () => {
    /** A tape as schema 2 wrote it, with forks, subagents and links: a current one without what schema 3 added. */
    async function schema2Tape(): Promise<void> {
      fs.rmSync(journalPathOf(file));
      fs.rmSync(file);
      const s = await TapeStore.open(file);
      await buildFamilyTape(s, { unansweredCall: false });
      await s.checkpoint(); // all in the snapshot, which is what is downgraded
      await s.close();
      const db = new (await loadSqlJs()).Database(fs.readFileSync(file));
      db.run("DROP TABLE sessions; DROP INDEX entries_by_link; UPDATE tape_meta SET value = '2' WHERE key = 'schema_version'; VACUUM");
      fs.writeFileSync(file, db.export());
      db.close();
    }

    /** Every row of `entries`, in rowid order: what must come through the migration entry for entry. */
    async function rowsOf(image: Uint8Array): Promise<unknown[][]> {
      const db = new (await loadSqlJs()).Database(image);
      try {
        return db.exec('SELECT * FROM entries ORDER BY id')[0].values;
      } finally {
        db.close();
      }
    }

    it('migrates once, in place: every entry kept, each session summarized as its rows say', async function () {
      this.timeout(30_000);
      await schema2Tape();
      const SQL = await loadSqlJs();
      const rows = await rowsOf(fs.readFileSync(file));
      const expected = summariesFromRows(SQL, fs.readFileSync(file));
      assert.ok(expected.length >= 7, 'forks, subagents and an ingested session');
      const before = [fingerprint(file), fingerprint(journalPathOf(file))];
      const ro = await TapeStore.open(file, { readOnly: true });
      assert.strictEqual(ro.openReport.migratedFrom, 2);
      assert.deepStrictEqual(ro.sessions(), expected);
      await ro.close();
      assert.deepStrictEqual([fingerprint(file), fingerprint(journalPathOf(file))], before, 'a read-only open migrates in memory only');

      const s = await TapeStore.open(file);
      assert.strictEqual(s.openReport.migratedFrom, 2);
      assert.deepStrictEqual(s.sessions(), expected);
      await s.close();
      const { meta, indexes } = await schemaOf(file);
      assert.strictEqual(meta.get('schema_version'), '3');
      assert.ok(indexes.includes('entries_by_link'));
      assert.deepStrictEqual(await rowsOf(fs.readFileSync(file)), rows, 'entry for entry');
      const again = await TapeStore.open(file);
      assert.strictEqual(again.openReport.migratedFrom, null, 'once');
      assert.deepStrictEqual(again.sessions(), expected);
      await again.close();
    });

    it('a migration that fails part way leaves the file as it was, says so, and the next open migrates', async function () {
      this.timeout(30_000);
      await schema2Tape();
      const before = [fingerprint(file), fingerprint(journalPathOf(file))];
      // A failure after the summaries are written, while they are checked against the rows.
      const probe = new (await loadSqlJs()).Database();
      const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Statement;
      probe.close();
      const step = proto.step;
      proto.step = function (this: Statement) {
        if (this.getSQL().startsWith('SELECT count(*), max(entry_id) FROM entries WHERE session_id')) throw new Error('out of memory');
        return step.call(this);
      };
      try {
        for (const readOnly of [true, false]) {
          await assert.rejects(
            TapeStore.open(file, { readOnly }),
            (e: Error) =>
              e instanceof TapeFileError && e.message === `${file}: could not be migrated from schema 2 to 3: out of memory; the file was left as it was`,
          );
        }
      } finally {
        proto.step = step;
      }
      assert.deepStrictEqual([fingerprint(file), fingerprint(journalPathOf(file))], before);
      assert.ok(!fs.existsSync(`${file}.lock`), 'the lock was released');
      const s = await TapeStore.open(file);
      assert.strictEqual(s.openReport.migratedFrom, 2);
      assert.strictEqual(s.sessions().length, summariesFromRows(await loadSqlJs(), fs.readFileSync(file)).length);
      await s.close();
    });
  });
});
