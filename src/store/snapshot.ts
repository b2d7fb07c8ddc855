import * as fs from 'fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { TapeFileError } from './errors';
import { configure, readMeta, SCHEMA_VERSION, TAPE_FORMAT } from './schema';

const MAGIC = 'SQLite format 3\0';

/**
 * Refuses bytes that are not a whole SQLite database before sql.js sees them: sql.js would open a
 * truncated file and fail later, or, worse, silently treat a non-database as empty.
 */
export function checkSqliteHeader(bytes: Uint8Array, file: string): void {
  if (bytes.length === 0) throw new TapeFileError(file, 'is empty, not a tape');
  if (bytes.length < 100 || Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('latin1') !== MAGIC) {
    throw new TapeFileError(file, 'is not a SQLite database (bad header); not a tape');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, 100);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pageCount = view.getUint32(28);
  // The header's page count is only trusted when the change counter matches "version valid for".
  const countValid = view.getUint32(24) === view.getUint32(92) && pageCount > 0;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new TapeFileError(file, `has a corrupt SQLite header (page size ${rawPageSize})`);
  if (countValid ? pageSize * pageCount !== bytes.length : bytes.length % pageSize !== 0) {
    const expected = countValid ? pageSize * pageCount : Math.ceil(bytes.length / pageSize) * pageSize;
    throw new TapeFileError(file, `is truncated or corrupt: ${bytes.length} bytes, the SQLite header says ${expected}`);
  }
}

/** Opens snapshot bytes as a tape database, or explains why they are not one. */
export function openSnapshot(SQL: SqlJsStatic, bytes: Uint8Array, file: string): Database {
  checkSqliteHeader(bytes, file);
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const marker = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tape_meta'");
    if (!marker.length) throw new TapeFileError(file, 'is a SQLite database but not an Agent Tape (no tape_meta table)');
    const meta = readMeta(db);
    if (meta.get('format') !== TAPE_FORMAT) throw new TapeFileError(file, 'is a SQLite database but not an Agent Tape (no tape marker)');
    const version = Number(meta.get('schema_version'));
    if (version > SCHEMA_VERSION) throw new TapeFileError(file, `was written by a newer Agent Tape (schema ${version}, this one reads ${SCHEMA_VERSION})`);
    configure(db);
    return db;
  } catch (e) {
    db?.close();
    if (e instanceof TapeFileError) throw e;
    throw new TapeFileError(file, `is corrupt or not a tape: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function readSnapshot(SQL: SqlJsStatic, file: string): Database {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new TapeFileError(file, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read: ${(e as Error).message}`);
  }
  return openSnapshot(SQL, bytes, file);
}
