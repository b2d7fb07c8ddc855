import { HEADER_BYTES } from '../../../src/store/journal';

/**
 * Where each record of a journal's bytes starts, and where the records end (the preallocated
 * zeros begin), walked from the frame lengths alone: independent of the reader under test.
 */
export function recordStarts(journal: Buffer): { starts: number[]; end: number } {
  const starts: number[] = [];
  let off = HEADER_BYTES;
  while (off + 4 <= journal.length && journal.readUInt32LE(off) !== 0) {
    starts.push(off);
    off += 16 + journal.readUInt32LE(off);
  }
  return { starts, end: off };
}
