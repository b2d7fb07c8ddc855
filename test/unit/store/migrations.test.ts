import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { readMeta, SCHEMA_VERSION } from '../../../src/store/schema';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
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
    assert.deepStrictEqual(indexes, ['entries_by_provenance', 'entries_by_session', 'entries_by_tool_call']);
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
});
