import { TapeFileError } from '../store/errors';
import { loadedSqlJs } from '../store/sqljs';
import { errorMessage } from '../tape/errorMessage';
import { readSourceBytes, readSourceBytesIfExists, readSourceHead } from './sourceFiles';
import { sameWal, walHeaderOf, walImage } from './sqliteWal';

type SqlJs = ReturnType<typeof loadedSqlJs>;
export type SqliteDb = InstanceType<SqlJs['Database']>;

/** A log restarted under every read means its writer checkpoints constantly; the next run reads it again. */
const READ_ATTEMPTS = 3;

/**
 * A copy of a database another program is writing, with its committed log (sqliteWal.ts). The
 * log's header is read before the database and the whole log after it: frames a checkpoint copies
 * into the file while it is read are all in the log read afterwards, which then overwrites them,
 * as long as the log was not restarted in between (new salts): then it is read again.
 */
export function readSqliteImage(file: string): Buffer {
  const walFile = `${file}-wal`;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = walHeaderOf(readSourceHead(walFile));
    const db = readSourceBytes(file);
    const wal = readSourceBytesIfExists(walFile);
    if (sameWal(before, walHeaderOf(wal))) return walImage(db, wal, file);
  }
  throw new TapeFileError(file, `changed while it was read (its write-ahead log restarted ${READ_ATTEMPTS} times); the next run reads it again`);
}

/**
 * A database image opened in memory for our own queries only: no function the file's schema names
 * runs (trusted_schema), nothing is written, and `tables` must be plain tables (a view or a
 * virtual table would run the file's SQL or code when read). Whatever goes wrong is a
 * TapeFileError naming `file`; the caller closes the database.
 */
export function openSqliteImage(SQL: SqlJs, image: Buffer, file: string, tables: readonly string[], what: string): SqliteDb {
  let db: SqliteDb | undefined;
  try {
    db = new SQL.Database(image);
    db.run('PRAGMA trusted_schema = OFF; PRAGMA query_only = ON;');
    const found = new Map<string, string>();
    const stmt = db.prepare("SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')");
    try {
      while (stmt.step()) {
        const [name, type, sql] = stmt.get();
        found.set(String(name), type === 'table' && /^\s*CREATE\s+TABLE\b/i.test(String(sql)) ? 'table' : 'other');
      }
    } finally {
      stmt.free();
    }
    const missing = tables.filter((t) => found.get(t) !== 'table');
    if (missing.length > 0) throw new TapeFileError(file, `is a SQLite database but not ${what} (no ${missing.map((t) => `\`${t}\``).join(', ')} table)`);
    return db;
  } catch (e) {
    db?.close();
    if (e instanceof TapeFileError) throw e;
    throw new TapeFileError(file, `is damaged or not a SQLite database (${errorMessage(e)})`);
  }
}

/**
 * Every row a fixed query of ours returns, as objects by column name; values from the file are
 * only ever bound `params`, never part of the text. A failure is a TapeFileError naming `file`.
 */
export function queryRows(db: SqliteDb, sql: string, file: string, params: (string | number)[] = []): Record<string, unknown>[] {
  try {
    const stmt = db.prepare(sql);
    try {
      if (params.length > 0) stmt.bind(params);
      const rows: Record<string, unknown>[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject());
      return rows;
    } finally {
      stmt.free();
    }
  } catch (e) {
    throw new TapeFileError(file, `is damaged or of an unknown schema (${errorMessage(e)})`);
  }
}
