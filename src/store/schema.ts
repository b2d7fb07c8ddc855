import { SUBAGENT_LINKED } from '../tape/entryNames';
import { randomUUID } from 'crypto';
import type { Database, SqlJsStatic } from 'sql.js';

/** The marker that tells a tape from any other SQLite file. */
export const TAPE_FORMAT = 'agent-tape';
/** Bumped with each migration in migrations.ts. */
export const SCHEMA_VERSION = 3;

// Fold columns (message_id … role) are filled from the payload at insert time, so folds never
// parse payload JSON. The FTS table is contentless and filled by the write path with each row
// (rowWriter.ts).
/**
 * Tool calls and results by call (schema 2): the crash repair a writable open runs (crashRepair.ts)
 * groups them by call; without it that took a sort of every tool row (~100 ms at 100k entries).
 */
export const TOOL_CALL_INDEX = 'CREATE INDEX entries_by_tool_call ON entries (session_id, message_id, tool_call_id, kind) WHERE tool_call_id IS NOT NULL';

/**
 * One row per session (schema 3), written with each of its rows (rowWriter.ts): listing the
 * sessions was a GROUP BY over every entry, the whole file once pages are read on demand.
 * `first_id` is the `entries.id` of its first row (sessions are listed in the order they began);
 * `calls_checked_head` is the head crash repair last looked at (crashRepair.ts), so a writable
 * open looks only at sessions that grew since.
 */
export const SESSIONS_TABLE = `CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  first_id INTEGER NOT NULL,
  head_entry_id INTEGER NOT NULL,
  entry_count INTEGER NOT NULL,
  anchor_count INTEGER NOT NULL,
  first_created_at INTEGER NOT NULL,
  last_created_at INTEGER NOT NULL,
  calls_checked_head INTEGER NOT NULL DEFAULT 0
)`;

/**
 * The subagent links of the whole tape (schema 3): finding the session that links a child (forks.ts
 * parentOf) read every entry. Partial, so it holds the links alone and costs other rows nothing.
 */
export const LINK_INDEX = `CREATE INDEX entries_by_link ON entries (kind, name) WHERE kind = 'event' AND name = '${SUBAGENT_LINKED}'`;

/** The search index: contentless (the text is in `entries`), one row per entry under its rowid. */
export const FTS_TABLE = 'CREATE VIRTUAL TABLE entries_fts USING fts4 (content="", text)';

const DDL = `
CREATE TABLE tape_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  entry_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  provenance_key TEXT,
  created_at INTEGER NOT NULL,
  message_id TEXT,
  tool_call_id TEXT,
  status TEXT,
  order_seq REAL,
  role TEXT,
  payload TEXT NOT NULL,
  meta TEXT NOT NULL
);
CREATE UNIQUE INDEX entries_by_session ON entries (session_id, entry_id);
CREATE UNIQUE INDEX entries_by_provenance ON entries (session_id, provenance_key) WHERE provenance_key IS NOT NULL;
${TOOL_CALL_INDEX};
${LINK_INDEX};
${FTS_TABLE};
${SESSIONS_TABLE};
`;

/**
 * Per-connection settings (not stored in the file). `trusted_schema = OFF` first: a tape may come
 * from anyone, and SQL functions with side effects must never run from its schema (the schema is
 * also checked to be exactly ours before anything else is read, schemaCheck.ts). The database
 * lives in sql.js's in-memory file system, so SQLite's own rollback journal buys no durability:
 * keep it in memory (durability is the tape journal's job). Exclusive locking spares each
 * transaction the hot-journal check, a file system lookup through JS. Nothing here writes.
 */
export function configure(db: Database): void {
  db.run('PRAGMA trusted_schema = OFF; PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;');
}

/**
 * FTS4 writes a small index segment at every commit and savepoint, and by default merges 16
 * segments of a level in one go: at the 4096th and the 65536th segment one append waits for a
 * merge of the whole index so far. Incremental merging spreads that work over the appends (70k
 * appends: the slowest batch of 500 took 65 ms instead of 100, throughput +5%). The setting is
 * stored in the index, so this is a write: a writable open makes it (each time, as older tapes lack
 * it), a read-only one never does.
 */
export function tuneSearchIndex(db: Database): void {
  db.run("INSERT INTO entries_fts (entries_fts) VALUES ('automerge=8')");
}

export function createTapeDb(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  // Larger pages: export and scans cross the JS/WASM boundary once per page.
  db.run('PRAGMA page_size = 16384');
  configure(db);
  db.run(DDL);
  const put = db.prepare('INSERT INTO tape_meta (key, value) VALUES (?, ?)');
  for (const [k, v] of [
    ['format', TAPE_FORMAT],
    ['schema_version', String(SCHEMA_VERSION)],
    ['tape_id', randomUUID()],
    ['last_seq', '0'],
  ])
    put.run([k, v]);
  put.free();
  return db;
}

export type MetaKey = 'format' | 'schema_version' | 'tape_id' | 'last_seq' | 'image_nonce';

export function readMeta(db: Database): Map<string, string> {
  const r = db.exec('SELECT key, value FROM tape_meta');
  return new Map((r[0]?.values ?? []).map(([k, v]) => [String(k), String(v)]));
}

export function writeMeta(db: Database, key: MetaKey, value: string | number): void {
  db.run('INSERT INTO tape_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, String(value)]);
}

export function deleteMeta(db: Database, key: string): void {
  db.run('DELETE FROM tape_meta WHERE key = ?', [key]);
}
