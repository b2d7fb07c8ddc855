import * as fs from 'fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';
import { TapeFileError } from './errors';
import { migrate, schemaVersionOf } from './migrations';
import { openRegular } from './safeRead';
import { StoredSchema } from './schemaCheck';
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

/**
 * Opens snapshot bytes as a tape database migrated to the current schema (`migratedFrom` is the
 * schema it had when older), or explains why they are not one. `bytes` may run past
 * `size` with zeros: sql.js's in-memory file takes a Node Buffer without copying, and SQLite keeps
 * to the page count in the header, so the zeros are room the database grows into. Without it the
 * first append copies the whole database to grow the file by 12.5%, which on a 100 MB tape costs
 * more than reading it.
 */
export function openSnapshot(SQL: SqlJsStatic, bytes: Buffer, file: string, size = bytes.length): { db: Database; migratedFrom: number | null } {
  checkSqliteHeader(bytes.subarray(0, size), file);
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
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
 * The largest snapshot opened. sql.js keeps the database file in one JS typed array (the Buffer
 * read here, plus the room recovery.ts leaves: the snapshot's size again and half as much again as
 * the journal), and a typed array cannot pass 4 GiB (buffer.constants.MAX_LENGTH); SQLite's own
 * working memory is sql.js's WASM heap, at most 2 GiB. 1 GiB with a journal at its own limit stays
 * inside both (1 + 1 + 1.5 GiB), and is some 10,000 times a long session's tape.
 */
export const SNAPSHOT_MAX_BYTES = 1 << 30;

/**
 * Reads a snapshot into a buffer with `roomBytes` of zeros after it (see openSnapshot) and opens
 * it. Returns the buffer too: it is the database's in-memory file (see LiveImage). A snapshot that
 * is not a regular file (a symlink to /dev/zero, a FIFO) or is over the limit is refused unread.
 */
export async function readSnapshot(SQL: SqlJsStatic, file: string, roomBytes = 0): Promise<{ db: Database; image: Buffer; migratedFrom: number | null }> {
  let bytes: Buffer;
  const { handle, stat } = await openRegular(file, SNAPSHOT_MAX_BYTES, 'a tape snapshot');
  const size = stat.size;
  try {
    // Buffer.alloc is calloc: the room costs nothing until SQLite writes into it.
    bytes = Buffer.alloc(size + Math.ceil(roomBytes / ROOM_ALIGN) * ROOM_ALIGN);
    await readSlices(handle, bytes, size);
  } catch (e) {
    throw new TapeFileError(file, `cannot be read: ${(e as Error).message}`);
  } finally {
    await handle.close();
  }
  return { ...openSnapshot(SQL, bytes, file, size), image: bytes };
}

const READ_SLICES = 4;
const MIN_SLICE = 4 << 20;

/**
 * Reads the first `size` bytes in up to four slices at once. Most of a big read's time is the
 * kernel faulting in the fresh buffer's pages, which the thread pool spreads over the cores:
 * 88 MB took 190 ms this way against 300 ms in one read here.
 */
async function readSlices(h: fs.promises.FileHandle, into: Buffer, size: number): Promise<void> {
  const slices = Math.max(1, Math.min(READ_SLICES, Math.floor(size / MIN_SLICE)));
  const step = Math.ceil(size / slices / ROOM_ALIGN) * ROOM_ALIGN;
  await Promise.all(
    Array.from({ length: slices }, async (_, i) => {
      const end = Math.min(size, (i + 1) * step);
      for (let off = i * step; off < end;) {
        const { bytesRead } = await h.read(into, off, end - off, off);
        if (bytesRead === 0) throw new Error(`the file shrank while being read (${off} of ${size} bytes)`);
        off += bytesRead;
      }
    }),
  );
}

/** The largest SQLite page size: room in whole pages whatever the tape's page size. */
const ROOM_ALIGN = 65536;
