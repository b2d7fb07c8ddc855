/**
 * The most bytes one entry's payload and meta take together as JSON text (UTF-8), as stored.
 * Real entries stay far below: a long model answer or a tool output of the 4 MiB a file read
 * returns. The limit is set by what one append costs on the way to disk: the JSON text, its UTF-8
 * bytes, the copy sql.js binds into WASM, SQLite's row and index pages and the journal record each
 * hold the entry again, about ten times its size in all, and a journal record must replay on every
 * open. At 16 MiB that is ~200 MB at worst; a 300 MB entry took 3.6 GB and failed.
 */
export const MAX_ENTRY_JSON_BYTES = 16 * 1024 * 1024;

const mib = (bytes: number): string => `${Math.round((bytes / (1 << 20)) * 10) / 10} MiB`;

/** Why an entry of `bytes` (or at least that many: `atLeast`) is refused. */
export const entryTooLarge = (bytes: number, atLeast = false): string =>
  `payload and meta take ${atLeast ? 'at least ' : ''}${mib(bytes)} as JSON; one entry holds at most ${mib(MAX_ENTRY_JSON_BYTES)}`;

/**
 * A lower bound of the UTF-8 bytes of `value` as JSON text, counted until it passes `limit` (then
 * the count so far is returned): each string's length (a UTF-16 code unit is at least one byte)
 * and its quotes, the punctuation, a number as one digit. It never builds the text, so a 300 MB
 * string is refused for the price of reading its length. What it leaves out (escapes, characters
 * of two to four bytes) is at most six times as much: the store checks the exact length of the
 * text it writes. `value` is JSON already checked for depth (entry.ts nonJson).
 */
export function jsonBytesAtLeast(value: unknown, limit: number): number {
  let total = 0;
  const walk = (v: unknown): void => {
    if (total > limit) return;
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v !== 'object' || v === null) total += 1;
    else if (Array.isArray(v)) {
      total += 1 + v.length;
      for (const item of v) walk(item);
    } else {
      total += 1;
      for (const k in v) {
        total += k.length + 4;
        walk((v as Record<string, unknown>)[k]);
      }
    }
  };
  walk(value);
  return total;
}
