import * as fs from 'fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';
import { TapeFileError } from './errors';
import { migrate, schemaVersionOf } from './migrations';
import { PagedFile } from './pagedFile';
import { openRegularSync } from './safeRead';
import { TAPE_MAX_BYTES } from './tapeSize';
import { StoredSchema } from './schemaCheck';
import { configure, readMeta, SCHEMA_VERSION, TAPE_FORMAT } from './schema';

const MAGIC = 'SQLite format 3\0';

/** The SQLite header: the first 100 bytes of a database file. */
const HEADER_BYTES = 100;

/**
 * Refuses a file that is not a whole SQLite database, from its header and size, before sql.js
 * sees it: sql.js would open a truncated file and fail later, or, worse, silently treat a
 * non-database as empty. Returns the page size.
 */
export function checkSqliteHeader(header: Uint8Array, size: number, file: string): number {
  if (size === 0) throw new TapeFileError(file, 'is empty, not a tape');
  if (size < HEADER_BYTES || header.length < HEADER_BYTES || Buffer.from(header.buffer, header.byteOffset, 16).toString('latin1') !== MAGIC) {
    throw new TapeFileError(file, 'is not a SQLite database (bad header); not a tape');
  }
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pageCount = view.getUint32(28);
  // The header's page count is only trusted when the change counter matches "version valid for".
  const countValid = view.getUint32(24) === view.getUint32(92) && pageCount > 0;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new TapeFileError(file, `has a corrupt SQLite header (page size ${rawPageSize})`);
  if (countValid ? pageSize * pageCount !== size : size % pageSize !== 0) {
    const expected = countValid ? pageSize * pageCount : Math.ceil(size / pageSize) * pageSize;
    throw new TapeFileError(file, `is truncated or corrupt: ${size} bytes, the SQLite header says ${expected}`);
  }
  return pageSize;
}

/**
 * Opens a database as a tape, migrated to the current schema (`migratedFrom` is the schema it had
 * when older), or explains why it is not one. `data` is what sql.js makes the database's file
 * from: the bytes of a snapshot held in memory, or a PagedFile's contents (readSnapshot).
 */
export function openSnapshot(SQL: SqlJsStatic, data: Uint8Array | object, file: string): { db: Database; migratedFrom: number | null } {
  if (data instanceof Uint8Array) checkSqliteHeader(data, data.length, file);
  let db: Database | undefined;
  try {
    db = new SQL.Database(data as Uint8Array);
    configure(db);
    // Nothing but sqlite_master is read until the schema is known to be ours (schemaCheck.ts).
    const schema = StoredSchema.read(db, file);
    if (!schema.hasTapeMeta(SQL)) throw new TapeFileError(file, 'is a SQLite database but not an Agent Tape (no tape_meta table as Agent Tape creates it)');
    const meta = readMeta(db);
    if (meta.get('format') !== TAPE_FORMAT) throw new TapeFileError(file, 'is a SQLite database but not an Agent Tape (no tape marker)');
    // The id ties journals to their snapshot (journal.ts); a tape without a proper one cannot replay.
    if (!/^[0-9a-f-]{36}$/.test(meta.get('tape_id') ?? '')) throw new TapeFileError(file, 'is an Agent Tape without a valid tape id; it may be damaged');
    schema.check(SQL, schemaVersionOf(meta, file), file);
    const from = migrate(db, file);
    return { db, migratedFrom: from === SCHEMA_VERSION ? null : from };
  } catch (e) {
    db?.close();
    if (e instanceof TapeFileError) throw e;
    throw new TapeFileError(file, `is corrupt or not a tape: ${errorMessage(e)}`);
  }
}

/**
 * Opens a snapshot for reading on demand (PagedFile): only its header is read here. A snapshot
 * that is not a regular file (a symlink to /dev/zero, a FIFO) or is over the tape size limit is
 * refused unread. The PagedFile is the caller's to close once the database is closed.
 */
export function readSnapshot(SQL: SqlJsStatic, file: string, maxBytes = TAPE_MAX_BYTES): { db: Database; file: PagedFile; migratedFrom: number | null } {
  const { fd, stat } = openRegularSync(file, maxBytes, 'a tape');
  let paged: PagedFile | undefined;
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    fs.readSync(fd, header, 0, HEADER_BYTES, 0);
    const opened = PagedFile.open(fd, stat.size, checkSqliteHeader(header, stat.size, file));
    paged = opened.file;
    return { ...openSnapshot(SQL, opened.contents, file), file: paged };
  } catch (e) {
    if (paged) paged.close();
    else fs.closeSync(fd);
    throw e instanceof TapeFileError ? e : new TapeFileError(file, `cannot be read: ${errorMessage(e)}`);
  }
}
