import { TapeFileError } from '../store/errors';

/**
 * A SQLite database another program has open in WAL mode keeps its newest transactions in
 * `<db>-wal` until a checkpoint copies them into the database file. Reading the file alone would
 * miss them, so the committed frames of the log are laid over a copy of the database's pages, as
 * SQLite's own recovery does (https://www.sqlite.org/fileformat2.html#the_write_ahead_log): a
 * frame counts when its salts are the log header's and its cumulative checksum holds, and only up
 * to the last commit frame (a transaction still being written is left out). The files themselves
 * are never opened for writing and no lock is taken.
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** The log's magic number; its last bit says whether the checksums read words big-endian. */
const WAL_MAGIC = 0x377f0682;
const WAL_VERSION = 3007000;
const DB_MAGIC = 'SQLite format 3\0';

export interface WalHeader {
  pageSize: number;
  checkpointSeq: number;
  salt1: number;
  salt2: number;
  bigEndian: boolean;
  checksum: readonly [number, number];
}

/** SQLite's WAL checksum over `bytes[from, to)` (a multiple of 8 bytes), continued from `s`. */
function checksum(bytes: Buffer, from: number, to: number, s: readonly [number, number], bigEndian: boolean): [number, number] {
  let [s0, s1] = s;
  for (let i = from; i < to; i += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    const x1 = bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

const validPageSize = (n: number): boolean => n >= 512 && n <= 65536 && (n & (n - 1)) === 0;

/** The log's header when `bytes` start with a valid one (magic, version, page size, checksum), else null. */
export function walHeaderOf(bytes: Buffer | null): WalHeader | null {
  if (bytes === null || bytes.length < WAL_HEADER_BYTES) return null;
  const magic = bytes.readUInt32BE(0);
  if ((magic & ~1) >>> 0 !== WAL_MAGIC || bytes.readUInt32BE(4) !== WAL_VERSION) return null;
  const pageSize = bytes.readUInt32BE(8);
  if (!validPageSize(pageSize)) return null;
  const bigEndian = (magic & 1) === 1;
  const sum = checksum(bytes, 0, 24, [0, 0], bigEndian);
  if (sum[0] !== bytes.readUInt32BE(24) || sum[1] !== bytes.readUInt32BE(28)) return null;
  return { pageSize, checkpointSeq: bytes.readUInt32BE(12), salt1: bytes.readUInt32BE(16), salt2: bytes.readUInt32BE(20), bigEndian, checksum: sum };
}

/** Whether two reads of a log header saw the same log: a restarted log has new salts. */
export const sameWal = (a: WalHeader | null, b: WalHeader | null): boolean =>
  a === null || b === null ? a === b : a.salt1 === b.salt1 && a.salt2 === b.salt2 && a.checkpointSeq === b.checkpointSeq;

export interface WalCommits {
  pageSize: number;
  /** Where each page's newest committed content starts in the log, by page number. */
  pages: Map<number, number>;
  /** The database's size in pages after the last commit. */
  dbPages: number;
  /** How many frames up to the last commit. */
  frames: number;
}

/** The committed frames of a log, or null when it has no valid header or no commit yet. */
export function walCommits(wal: Buffer): WalCommits | null {
  const header = walHeaderOf(wal);
  if (header === null) return null;
  const { pageSize, salt1, salt2, bigEndian } = header;
  const pages = new Map<number, number>();
  let pending: [number, number][] = [];
  let sum: readonly [number, number] = header.checksum;
  let dbPages = 0;
  let frames = 0;
  let n = 0;
  for (let at = WAL_HEADER_BYTES; at + FRAME_HEADER_BYTES + pageSize <= wal.length; at += FRAME_HEADER_BYTES + pageSize) {
    const page = wal.readUInt32BE(at);
    const commitSize = wal.readUInt32BE(at + 4);
    // Frames of an earlier log generation (left past the end after a restart) carry older salts.
    if (page === 0 || wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    const next = checksum(wal, at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + pageSize, checksum(wal, at, at + 8, sum, bigEndian), bigEndian);
    if (next[0] !== wal.readUInt32BE(at + 16) || next[1] !== wal.readUInt32BE(at + 20)) break;
    sum = next;
    n++;
    pending.push([page, at + FRAME_HEADER_BYTES]);
    if (commitSize !== 0) {
      for (const [p, offset] of pending) pages.set(p, offset);
      pending = [];
      dbPages = commitSize;
      frames = n;
    }
  }
  return frames === 0 ? null : { pageSize, pages, dbPages, frames };
}

/** The page size a database file's header gives, or null when it is not a SQLite database's header. */
export function dbPageSizeOf(bytes: Buffer): number | null {
  if (bytes.length < 100 || bytes.toString('latin1', 0, 16) !== DB_MAGIC) return null;
  const raw = bytes.readUInt16BE(16);
  const size = raw === 1 ? 65536 : raw;
  return validPageSize(size) ? size : null;
}

/**
 * The database as its last committed transaction left it: `db`'s pages with the log's committed
 * frames laid over them, marked as a rollback-journal database (file format bytes 18 and 19), so
 * that an in-memory SQLite opens the image without looking for a log of its own. `db` may be
 * empty (a database created in WAL mode whose first pages are all still in the log). A file that
 * is not a SQLite database is a TapeFileError naming it.
 */
export function walImage(db: Buffer, wal: Buffer | null, file: string): Buffer {
  const commits = wal === null ? null : walCommits(wal);
  const dbPageSize = db.length === 0 ? null : dbPageSizeOf(db);
  if (db.length > 0 && dbPageSize === null) throw new TapeFileError(file, 'is not a SQLite database (bad header)');
  let image = db;
  if (commits !== null && wal !== null) {
    const { pageSize } = commits;
    if (dbPageSize !== null && dbPageSize !== pageSize)
      throw new TapeFileError(`${file}-wal`, `has pages of ${pageSize} bytes, its database of ${dbPageSize}: it is not that database's log`);
    // Every page of the committed database is in the file or in the log: a larger size is a lie.
    if (commits.dbPages * pageSize > db.length + wal.length)
      throw new TapeFileError(`${file}-wal`, `says its database has ${commits.dbPages} pages, more than the database and its log hold`);
    image = Buffer.alloc(commits.dbPages * pageSize);
    db.copy(image, 0, 0, Math.min(db.length, image.length));
    for (const [page, offset] of commits.pages) if (page <= commits.dbPages) wal.copy(image, (page - 1) * pageSize, offset, offset + pageSize);
  }
  if (image.length === 0) throw new TapeFileError(file, 'is empty, not a SQLite database');
  if (dbPageSizeOf(image) === null) throw new TapeFileError(file, 'is not a SQLite database (bad header)');
  // The image is ours (a copy, or the bytes read for it): marking it changes nothing on disk.
  image[18] = 1;
  image[19] = 1;
  return image;
}
