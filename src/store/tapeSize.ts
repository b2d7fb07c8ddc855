import { TapeFullError } from './errors';

const GiB = 1 << 30;

/**
 * The largest tape database this program opens and the largest it lets an append make: one limit
 * for both, so nothing it writes is ever refused when read back. A tape is read page by page
 * (PagedFile), so the limit is not what a process can hold; it is what the paths that take the
 * whole database into one typed array still need (a session delete's VACUUM and the checkpoint
 * after it, `snapshotBytes`): a typed array holds at most 4 GiB, and the journal's records (at most
 * 1 GiB, see JOURNAL_MAX_BYTES) are replayed next to it. A store may be opened with a smaller
 * limit (OpenOptions.maxBytes), never a larger one.
 */
export const TAPE_MAX_BYTES = 3 * GiB;

/** From nine tenths of the limit on, a writer is told the tape is nearly full (CLI stderr, a warning in VS Code). */
const NEAR = 0.9;

/**
 * An append is refused when the database could pass the limit with it: its rows take about their
 * JSON size again in SQLite, indexes included, and more while the search index merges its
 * segments, hence three times, plus a forty-eighth of the limit (64 MiB) for what a checkpoint's
 * metadata and the index's merges add on their own.
 */
const GROWTH_FACTOR = 3;
const HEADROOM = 1 / 48;

const gib = (n: number): string => (n >= GiB ? `${(n / GiB).toFixed(2)} GiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);

/** Refuses, before anything is written, an append of `incomingBytes` of rows that could take the database past `limit`. */
export function checkRoomFor(file: string, databaseBytes: number, incomingBytes: number, limit = TAPE_MAX_BYTES): void {
  if (databaseBytes + incomingBytes * GROWTH_FACTOR + limit * HEADROOM <= limit) return;
  throw new TapeFullError(
    file,
    `is ${gib(databaseBytes)}, and with these ${incomingBytes} bytes of entries it could pass the ${gib(limit)} a tape can hold; nothing was written. Start a new tape for new sessions (copy the sessions you want out first with 'agent-tape export')`,
  );
}

/** The warning for a tape at nine tenths of `limit` or more, or null below. */
export function nearlyFullWarning(file: string, databaseBytes: number, limit = TAPE_MAX_BYTES): string | null {
  if (databaseBytes < limit * NEAR) return null;
  return `${file} is ${gib(databaseBytes)} of the ${gib(limit)} a tape can hold; appends stop at the limit. Start a new tape for new sessions soon (copy the sessions you want out first with 'agent-tape export')`;
}
