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
 * A table of another program's database that our queries read: the columns they need, and the
 * ones they read when present (some came and went between versions). `optional` for a table an
 * older version lacks: then it is not read.
 */
export interface ForeignTable {
  columns: readonly string[];
  optionalColumns?: readonly string[];
  optional?: boolean;
}

/**
 * A database image opened in memory for our own queries only: no function the file's schema names
 * runs (trusted_schema), nothing is written, and before any of our queries every table in
 * `tables` is checked in the schema to be a plain table with the columns we read as stored ones.
 * A view, a virtual table or a generated column would run the file's SQL or code when read (a
 * recursive view runs until memory is gone); triggers and defaults need no check, as nothing is
 * written and SQLite fills a record's missing columns only with literal defaults. Names are looked
 * up as SQLite resolves them, without regard to ASCII case. Whatever goes wrong is a TapeFileError
 * naming `file`; the caller closes the database.
 */
export function openSqliteImage(SQL: SqlJs, image: Buffer, file: string, tables: Readonly<Record<string, ForeignTable>>, what: string): SqliteDb {
  let db: SqliteDb | undefined;
  try {
    db = new SQL.Database(image);
    db.run('PRAGMA trusted_schema = OFF; PRAGMA query_only = ON;');
    const open = db;
    const missing = Object.entries(tables).flatMap(([name, table]) => (checkTable(open, file, name, table) || table.optional === true ? [] : [name]));
    if (missing.length > 0) throw new TapeFileError(file, `is a SQLite database but not ${what} (no ${missing.map((t) => `\`${t}\``).join(', ')} table)`);
    return db;
  } catch (e) {
    db?.close();
    if (e instanceof TapeFileError) throw e;
    throw new TapeFileError(file, `is damaged or not a SQLite database (${errorMessage(e)})`);
  }
}

/** Whether `name` is there; throws when it is there but not a plain table with `table`'s columns stored. */
function checkTable(db: SqliteDb, file: string, name: string, table: ForeignTable): boolean {
  const found = queryRows(db, "SELECT type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE", file, [name]);
  if (found.length === 0) return false;
  const sql = String(found[0].sql);
  if (found.length > 1 || found[0].type !== 'table' || !/^\s*CREATE\s+TABLE\b/i.test(sql)) {
    const kind =
      found.length > 1
        ? 'defined twice'
        : found[0].type === 'view'
          ? 'a view'
          : /^\s*CREATE\s+VIRTUAL\b/i.test(sql)
            ? 'a virtual table'
            : 'an unknown kind of table';
    throw new TapeFileError(file, `\`${name}\` is ${kind}, not a table; only plain tables are read`);
  }
  const columns = new Map(queryRows(db, `PRAGMA table_xinfo("${name}")`, file).map((c) => [asciiLower(String(c.name)), Number(c.hidden)]));
  const absent = table.columns.filter((c) => !columns.has(c));
  if (absent.length > 0) throw new TapeFileError(file, `\`${name}\` has no ${absent.map((c) => `\`${c}\``).join(', ')} column`);
  const generated = [...table.columns, ...(table.optionalColumns ?? [])].filter((c) => (columns.get(c) ?? 0) !== 0);
  if (generated.length > 0)
    throw new TapeFileError(
      file,
      `\`${name}\` computes ${generated.map((c) => `\`${c}\``).join(', ')} when read (a generated column); only stored columns are read`,
    );
  return true;
}

/** SQLite folds only ASCII letters when it compares names. */
const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

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
