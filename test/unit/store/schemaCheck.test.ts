import * as assert from 'assert';
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Database } from 'sql.js';
import { TapeFileError } from '../../../src/store/errors';
import { writeFileDurably } from '../../../src/store/fsutil';
import { journalPathOf } from '../../../src/store/journal';
import { createTapeDb, readMeta, SCHEMA_VERSION } from '../../../src/store/schema';
import { openSnapshot } from '../../../src/store/snapshot';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { message, tempDir } from './helpers';

const STORE_MODULE = path.resolve(__dirname, '../../../src/store/tapeStore');
const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/tapes/schema-v1.tape.sqlite');

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A tape file made as Agent Tape makes one, then changed by `tamper` as a hostile author would. */
async function tamperedTape(file: string, tamper: (db: Database) => void): Promise<void> {
  const db = createTapeDb(await loadSqlJs());
  try {
    db.run(
      'INSERT INTO entries (session_id, entry_id, kind, name, created_at, payload, meta) VALUES (\'s\', 1, \'anchor\', \'session/start\', 1, \'{"name":"session/start","state":{"sessionId":"s"}}\', \'{}\')',
    );
    tamper(db);
    fs.writeFileSync(file, db.export());
  } finally {
    db.close();
  }
}

/** The tape_meta rows, read from the file with sql.js alone (no Agent Tape code, nothing run). */
async function metaInFile(file: string): Promise<Map<string, string>> {
  const db = new (await loadSqlJs()).Database(fs.readFileSync(file));
  try {
    return readMeta(db);
  } finally {
    db.close();
  }
}

describe('a tape database must have exactly the schema Agent Tape creates', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'x.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const EXTRAS: { what: string; sql: string; named: RegExp }[] = [
    { what: 'a view', sql: 'CREATE VIEW v AS SELECT * FROM entries', named: /an extra view "v"/ },
    { what: 'a table', sql: 'CREATE TABLE extra (x)', named: /an extra table "extra"/ },
    { what: 'an index', sql: 'CREATE INDEX by_kind ON entries (kind)', named: /an extra index "by_kind"/ },
    {
      what: 'a trigger',
      sql: "CREATE TRIGGER t AFTER INSERT ON entries BEGIN INSERT INTO tape_meta VALUES ('fired', 'yes'); END",
      named: /an extra trigger "t"/,
    },
    {
      what: 'a changed index',
      sql: 'DROP INDEX entries_by_session; CREATE UNIQUE INDEX entries_by_session ON entries (session_id, entry_id, kind)',
      named: /a changed index "entries_by_session" \("CREATE UNIQUE INDEX entries_by_session ON entries \(session_id, entry_id, kind\)"\)/,
    },
  ];
  for (const { what, sql, named } of EXTRAS) {
    it(`${what} in the file is refused, read-only and writable, naming it; the file is unchanged`, async () => {
      await tamperedTape(file, (db) => db.run(sql));
      const before = sha256(file);
      for (const readOnly of [true, false]) {
        await assert.rejects(
          TapeStore.open(file, { readOnly }),
          (e: Error) =>
            e instanceof TapeFileError &&
            e.message.startsWith(`${file}: has a schema that Agent Tape does not create (schema ${SCHEMA_VERSION}): `) &&
            named.test(e.message),
        );
      }
      assert.strictEqual(sha256(file), before);
      assert.deepStrictEqual(fs.readdirSync(dir), ['x.tape.sqlite'], 'no journal, no lock');
    });
  }

  it('a trigger that would fire on our appends never runs: the open is refused before anything is written', async () => {
    await tamperedTape(file, (db) => db.run("CREATE TRIGGER t AFTER INSERT ON entries BEGIN INSERT INTO tape_meta VALUES ('fired', 'yes'); END"));
    const store = await TapeStore.open(file).catch((e: unknown) => e);
    if (store instanceof TapeStore) {
      // The old behaviour, to show what is at stake: an append runs the file's trigger.
      await store.append('s', message('m1', 'hi'));
      await store.checkpoint();
      await store.close();
    }
    assert.ok(store instanceof TapeFileError, 'refused');
    assert.strictEqual((await metaInFile(file)).get('fired'), undefined, 'the trigger never fired');
  });

  it('an entries table replaced by a recursive view is refused at once instead of hanging the open', async () => {
    await tamperedTape(file, (db) =>
      db.run(`DROP TABLE entries;
      CREATE VIEW entries (id, session_id, entry_id, kind, name, provenance_key, created_at, message_id, tool_call_id, status, order_seq, role, payload, meta) AS
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i, 's', i, 'event', 'e', NULL, 1, NULL, NULL, NULL, NULL, NULL, '{}', '{}' FROM n;
      CREATE TRIGGER ins INSTEAD OF INSERT ON entries BEGIN SELECT 1; END;`),
    );
    const before = sha256(file);
    // In a child process: a hang in SQLite blocks the thread, and mocha's timeout with it.
    const script = `require(${JSON.stringify(STORE_MODULE)}).TapeStore.open(process.argv[1], { readOnly: true }).then(
      (s) => console.log(JSON.stringify({ sessions: s.sessions().length })), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));`;
    const r = spawnSync(process.execPath, ['-e', script, file], { encoding: 'utf8', timeout: 10_000, killSignal: 'SIGKILL' });
    assert.strictEqual(r.signal, null, 'the open did not end within 10 s');
    const out = JSON.parse(r.stdout) as { name: string; message: string };
    assert.strictEqual(out.name, 'TapeFileError', r.stdout);
    assert.match(out.message, /an extra view "entries"/);
    assert.match(out.message, /an extra trigger "ins"/);
    assert.match(out.message, /no table "entries"/);
    assert.strictEqual(sha256(file), before);
  });

  it('a schema 1 tape (no tool call index yet) opens and migrates; the same structure claiming schema 2 is refused', async () => {
    fs.copyFileSync(FIXTURE, file);
    fs.copyFileSync(journalPathOf(FIXTURE), journalPathOf(file));
    const s = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(s.openReport.migratedFrom, 1);
    await s.close();
    const db = new (await loadSqlJs()).Database(fs.readFileSync(FIXTURE));
    db.run("UPDATE tape_meta SET value = '2' WHERE key = 'schema_version'");
    fs.writeFileSync(file, db.export());
    db.close();
    await assert.rejects(
      TapeStore.open(file, { readOnly: true }),
      /has a schema that Agent Tape does not create \(schema 2\): no index "entries_by_tool_call"/,
    );
  });

  it('a tape_meta that is not ours is not read at all', async () => {
    await tamperedTape(file, (db) => db.run("DROP TABLE tape_meta; CREATE VIEW tape_meta (key, value) AS SELECT 'format', 'agent-tape'"));
    await assert.rejects(
      TapeStore.open(file, { readOnly: true }),
      (e: Error) => e instanceof TapeFileError && /not an Agent Tape \(no tape_meta table as Agent Tape creates it\)/.test(e.message),
    );
  });

  it('every connection runs with trusted_schema off', async () => {
    const SQL = await loadSqlJs();
    const fresh = createTapeDb(SQL);
    const trusted = (db: Database): unknown => db.exec('PRAGMA trusted_schema')[0].values[0][0];
    assert.strictEqual(trusted(fresh), 0);
    const { db } = openSnapshot(SQL, Buffer.from(fresh.export()), file);
    fresh.close();
    assert.strictEqual(trusted(db), 0);
    db.close();
  });

  it('a read-only open writes nothing: the file keeps its bytes and the database in memory its search index settings', async () => {
    // As a JSONL import writes a tape: never opened writable, so the index has no automerge setting yet.
    const source = createTapeDb(await loadSqlJs());
    const image = source.export();
    source.close();
    await writeFileDurably(file, [image], true);
    const before = sha256(file);
    const s = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(s.openReport.replayedRecords, 0);
    assert.strictEqual(s.openReport.migratedFrom, null);
    // With nothing to replay or migrate, the database in memory is the file, byte for byte.
    assert.ok(Buffer.from(s.snapshotBytes()).equals(fs.readFileSync(file)), 'the read-only database was written to (the FTS index setting)');
    await s.close();
    assert.strictEqual(sha256(file), before);
  });
});
