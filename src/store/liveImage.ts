import { randomBytes } from 'crypto';
import type { Database } from 'sql.js';
import { writeMeta } from './schema';

/**
 * A fast, consistent copy of the database for checkpoints.
 *
 * `db.export()` allocates and fills a new database-sized buffer on every call, so its cost is one
 * page fault per page of fresh memory: measured here at 3-4 ms per MB, a UI freeze of several
 * hundred ms on a 100 MB tape. But sql.js keeps the database file in memory, and a database opened
 * from a Node Buffer uses that very Buffer as its file (see openSnapshot). Between transactions
 * the file is a complete database, so copying its pages into a buffer kept from the previous
 * checkpoint is a memcpy into warm memory.
 *
 * That relies on a detail of sql.js's in-memory file system, so it is checked every time: a random
 * nonce is committed first and must be found in the Buffer, within the database's pages. If not
 * (the file outgrew the Buffer and was reallocated, or sql.js changed), this returns null for good
 * and the caller uses `db.export()`.
 */
export class LiveImage {
  private copy: Buffer | undefined;

  constructor(private file: Buffer | null) {}

  /** The database's pages, valid until the next call; null when the fast path does not hold. */
  capture(db: Database): Uint8Array | null {
    const file = this.file;
    if (file === null) return null;
    const nonce = randomBytes(16).toString('hex');
    writeMeta(db, 'image_nonce', nonce);
    const [pageSize, pageCount] = ['page_size', 'page_count'].map((p) => db.exec(`PRAGMA ${p}`)[0].values[0][0] as number);
    const size = pageSize * pageCount;
    const at = size <= file.length ? file.indexOf(nonce, 0, 'latin1') : -1;
    if (at < 0 || at >= size) {
      this.file = null;
      this.copy = undefined;
      return null;
    }
    // An eighth of headroom so a growing tape does not reallocate (and fault in) every time.
    if (!this.copy || this.copy.length < size) this.copy = Buffer.allocUnsafe(size + (size >> 3));
    file.copy(this.copy, 0, 0, size);
    return this.copy.subarray(0, size);
  }
}
