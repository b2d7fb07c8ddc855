import * as zlib from 'zlib';

/**
 * CRC-32 (IEEE) of a byte range: what tells a torn or overwritten journal record from a good one.
 * zlib's native implementation (Node >= 20.15, which `engines` requires) is ~50x a JS table loop,
 * and the journal checksums every append.
 */
export const crc32 = (bytes: Uint8Array, start = 0, end = bytes.length): number =>
  zlib.crc32(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)) >>> 0;
