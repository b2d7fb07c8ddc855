import type { Database } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';
import { TapeFileError } from './errors';
import { indexRowsAfter } from './search';
import { deleteMeta, LINK_INDEX, readMeta, SCHEMA_VERSION, SESSIONS_TABLE, TOOL_CALL_INDEX, writeMeta } from './schema';

/**
 * Schema migrations, in order: `migrations[n]` takes a tape from schema n + 1 to n + 2. They run
 * on the in-memory database when a tape is opened; a writable store's next checkpoint writes the
 * migrated snapshot, a read-only open never writes and migrates again next time. A tape from a
 * newer Agent Tape is refused, never opened as if it were understood.
 */
const migrations: readonly ((db: Database) => void)[] = [
  // 1 -> 2: the search index is written with each row instead of lazily by the first search, which
  // indexed every row after `fts_upto`: on a large tape a first search waited seconds, every time
  // for a read-only open. And tool rows are indexed by call, for crash repair.
  (db) => {
    db.run(TOOL_CALL_INDEX);
    indexRowsAfter(db, Number(readMeta(db).get('fts_upto') ?? 0));
    deleteMeta(db, 'fts_upto');
  },
  // 2 -> 3: listing sessions and finding subagent links read every entry; the write path now keeps
  // a summary per session and the links have an index. The summaries must account for every row.
  (db) => {
    db.run(LINK_INDEX);
    db.run(SESSIONS_TABLE);
    db.run(`INSERT INTO sessions (session_id, first_id, head_entry_id, entry_count, anchor_count, first_created_at, last_created_at)
      SELECT session_id, min(id), max(entry_id), count(*), sum(kind = 'anchor'), min(created_at), max(created_at) FROM entries GROUP BY session_id`);
    checkSessionSummaries(db);
  },
];

if (migrations.length !== SCHEMA_VERSION - 1) throw new Error(`schema ${SCHEMA_VERSION} needs ${SCHEMA_VERSION - 1} migrations, found ${migrations.length}`);

/**
 * Refuses session summaries that do not match the rows: per session, the count and head that its
 * index finds (not the GROUP BY that wrote them), and in all, every row of the table.
 */
function checkSessionSummaries(db: Database): void {
  const rows = db.exec('SELECT count(*) FROM entries')[0].values[0][0] as number;
  const summaries = db.prepare('SELECT session_id, entry_count, head_entry_id FROM sessions');
  const own = db.prepare('SELECT count(*), max(entry_id) FROM entries WHERE session_id = ?');
  let counted = 0;
  try {
    while (summaries.step()) {
      const [sessionId, count, head] = summaries.get();
      own.bind([sessionId]);
      own.step();
      const [found, foundHead] = own.get();
      own.reset();
      if (found !== count || foundHead !== head)
        throw new Error(`session ${JSON.stringify(sessionId)} was summarized as ${count} entries up to ${head}, its rows are ${found} up to ${foundHead}`);
      counted += found as number;
    }
  } finally {
    summaries.free();
    own.free();
  }
  if (counted !== rows) throw new Error(`the session summaries account for ${counted} of its ${rows} entries`);
}

/** The schema version a tape's meta names, refusing one that is not valid or is newer than this build's. */
export function schemaVersionOf(meta: ReadonlyMap<string, string>, file: string): number {
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1)
    throw new TapeFileError(file, `has no valid schema version (${meta.get('schema_version') ?? 'none'}); it may be damaged`);
  if (version > SCHEMA_VERSION) {
    throw new TapeFileError(
      file,
      `was written by a newer Agent Tape (schema ${version}; this version reads schemas 1 to ${SCHEMA_VERSION}); update Agent Tape to open it`,
    );
  }
  return version;
}

/**
 * Brings an opened tape database to SCHEMA_VERSION; returns the schema version it had. On a
 * read-only open this changes only the database in memory: nothing reaches the file.
 */
export function migrate(db: Database, file: string): number {
  const from = schemaVersionOf(readMeta(db), file);
  if (from === SCHEMA_VERSION) return from;
  db.run('BEGIN');
  try {
    for (let v = from; v < SCHEMA_VERSION; v++) migrations[v - 1](db);
    writeMeta(db, 'schema_version', SCHEMA_VERSION);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw new TapeFileError(file, `could not be migrated from schema ${from} to ${SCHEMA_VERSION}: ${errorMessage(e)}; the file was left as it was`);
  }
  return from;
}
