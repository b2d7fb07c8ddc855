/**
 * FTS4's varints: little-endian base 128, at most 9 bytes (the search index's statistics, row
 * sizes and segment nodes use them). Reads are bounded, so a damaged blob in someone else's file
 * gives a wrong number, never a loop or NaN.
 */

/** The varint at `at`: [value, next offset]. */
export function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0; at < bytes.length && shift < 63; shift += 7) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  return [value, at];
}

/** `value` (a non-negative safe integer) as a varint. */
export function varintBytes(value: number): number[] {
  const out: number[] = [];
  do {
    const low = value % 128;
    value = Math.floor(value / 128);
    out.push(value > 0 ? low | 0x80 : low);
  } while (value > 0);
  return out;
}
