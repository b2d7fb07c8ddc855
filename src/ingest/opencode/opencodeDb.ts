import { loadedSqlJs, loadSqlJs } from '../../store/sqljs';
import { jsonTextTooDeep } from '../../tape/jsonDepth';
import { countSkip } from '../format';
import { openSqliteImage, queryRows, readSqliteImage, type ForeignTable, type SqliteDb } from '../sqliteSource';
import type { OcMessage, OcPart, OcProject, OcSession, OpencodeData } from './opencodeRecords';

/**
 * opencode's database since 1.2 (`~/.local/share/opencode/opencode.db`, drizzle schema in
 * packages/opencode/src/session/session.sql.ts and project/project.sql.ts): `project`, `session`
 * (columns; `parent_id` for a subagent's), `message` and `part` (ids in columns, the rest as JSON
 * in `data`). Read from a copy of its bytes and its write-ahead log (sqliteSource.ts), so that
 * what opencode committed last is seen and opencode is never in the way.
 */

/** Every table and column a query below reads; without `project`, sessions are read without their worktree. */
const TABLES: Readonly<Record<string, ForeignTable>> = {
  project: { columns: [], optionalColumns: ['id', 'worktree'], optional: true },
  session: { columns: ['id'], optionalColumns: ['project_id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated'] },
  message: { columns: ['id', 'session_id', 'data'], optionalColumns: ['time_created'] },
  part: { columns: ['id', 'message_id', 'session_id', 'data'] },
};
const WHAT = "opencode's database";

/** The columns of ours a table has (none when it is absent): some came and went between versions. */
function columnsOf(db: SqliteDb, table: string, wanted: readonly string[], file: string): string[] {
  const have = new Set(queryRows(db, `PRAGMA table_info("${table}")`, file).map((r) => String(r.name)));
  return wanted.filter((c) => have.has(c));
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A `data` column's JSON, or undefined (counted under `kind`) when it is not JSON or nests too deep. */
function json(text: unknown, kind: string, skipped: Record<string, number>): unknown {
  if (typeof text === 'string' && jsonTextTooDeep(text) === null) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // counted below
    }
  }
  countSkip(skipped, `invalid-json/${kind}`);
  return undefined;
}

/** An opencode database read from `file`, open for our queries; the caller closes it. */
export function openOpencodeDb(file: string, SQL = loadedSqlJs()): SqliteDb {
  return openSqliteImage(SQL, readSqliteImage(file), file, TABLES, WHAT);
}

export function projectsOf(db: SqliteDb, file: string): OcProject[] {
  const cols = columnsOf(db, 'project', ['id', 'worktree'], file);
  if (!cols.includes('id')) return [];
  return queryRows(db, `SELECT ${cols.join(', ')} FROM project`, file).flatMap((r) => {
    const id = str(r.id);
    return id === undefined ? [] : [{ id, worktree: str(r.worktree) }];
  });
}

export function sessionsOf(db: SqliteDb, file: string): OcSession[] {
  const cols = columnsOf(db, 'session', ['id', 'project_id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated'], file);
  return queryRows(db, `SELECT ${cols.join(', ')} FROM session ORDER BY id`, file).flatMap((r) => {
    const id = str(r.id);
    if (id === undefined) return [];
    return [
      {
        id,
        projectId: str(r.project_id),
        parentId: str(r.parent_id),
        directory: str(r.directory),
        title: str(r.title),
        created: num(r.time_created),
        updated: num(r.time_updated),
      },
    ];
  });
}

/** The ids of the sessions that have a message. */
export const sessionsWithMessagesOf = (db: SqliteDb, file: string): string[] =>
  queryRows(db, 'SELECT DISTINCT session_id FROM message', file).flatMap((r) => str(r.session_id) ?? []);

/**
 * The messages and parts of every session, or of `sessionId`'s alone, in opencode's order; rows
 * whose JSON cannot be read are counted in `skipped`.
 */
export function recordsOf(db: SqliteDb, file: string, skipped: Record<string, number>, sessionId?: string): Pick<OpencodeData, 'messages' | 'parts'> {
  const where = sessionId === undefined ? '' : ' WHERE session_id = ?';
  const params = sessionId === undefined ? [] : [sessionId];
  const order = columnsOf(db, 'message', ['time_created'], file).length > 0 ? 'session_id, time_created, id' : 'session_id, id';
  const messages: OcMessage[] = queryRows(db, `SELECT id, session_id, data FROM message${where} ORDER BY ${order}`, file, params).flatMap((r) => {
    const id = str(r.id);
    const session = str(r.session_id);
    const data = json(r.data, 'message', skipped);
    return id === undefined || session === undefined || data === undefined ? [] : [{ id, sessionId: session, data }];
  });
  const parts: OcPart[] = queryRows(db, `SELECT id, message_id, data FROM part${where} ORDER BY message_id, id`, file, params).flatMap((r) => {
    const id = str(r.id);
    const messageId = str(r.message_id);
    const data = json(r.data, 'part', skipped);
    return id === undefined || messageId === undefined || data === undefined ? [] : [{ id, messageId, data }];
  });
  return { messages, parts };
}

/** Everything `file` holds now. */
export async function readOpencodeDb(file: string): Promise<OpencodeData> {
  const db = openOpencodeDb(file, await loadSqlJs());
  try {
    const skipped: Record<string, number> = {};
    return { projects: projectsOf(db, file), sessions: sessionsOf(db, file), ...recordsOf(db, file, skipped), skipped };
  } finally {
    db.close();
  }
}
