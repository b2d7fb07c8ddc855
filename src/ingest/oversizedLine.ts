import { MAX_ENTRY_JSON_BYTES } from '../tape/entrySize';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Strings shorter than this are never cut: they are the record's structure (keys, ids, roles). */
const MIN_CUT_BYTES = 1024;
/** Room for the marker after each cut string (ASCII: no quote or backslash to escape). */
const MARKER_MAX_BYTES = 160;

const marker = (dropped: number, of: number): string =>
  ` [... cut by agent-tape: ${dropped.toLocaleString('en-US')} of ${of.toLocaleString('en-US')} bytes left out; one entry holds at most ${MAX_ENTRY_JSON_BYTES >> 20} MiB]`;

/**
 * A transcript line too large to become an entry (over MAX_ENTRY_JSON_BYTES), with its longest
 * strings cut so that it takes at most a quarter of the limit (a mapper may store a text twice,
 * as Claude Code's message and its toolUseResult), each cut string ending in a marker that says
 * what was left out; null when the line's other bytes alone are over that (then it is an invalid
 * line). Works on the bytes without parsing or decoding them: a quote or backslash byte is never
 * part of a longer UTF-8 character, so strings are found with indexOf, and the result is a new
 * line small enough for JSON.parse. A line that is not JSON stays not JSON.
 */
export function cutOversizedLine(line: Buffer, limit = MAX_ENTRY_JSON_BYTES): Buffer | null {
  const target = limit / 4;
  // Content start and end (the closing quote) of each long string.
  const spans: [number, number][] = [];
  let long = 0;
  for (let i = line.indexOf(QUOTE); i >= 0; i = line.indexOf(QUOTE, i + 1)) {
    let end = i;
    for (;;) {
      end = line.indexOf(QUOTE, end + 1);
      if (end < 0) return null;
      let k = end - 1;
      while (line[k] === BACKSLASH) k--;
      if ((end - k) % 2 === 1) break;
    }
    if (end - i - 1 >= MIN_CUT_BYTES) {
      spans.push([i + 1, end]);
      long += end - i - 1;
    }
    i = end;
  }
  const budget = target - (line.length - long) - spans.length * MARKER_MAX_BYTES;
  if (budget < 0) return null;
  const cap = largestCap(
    spans.map(([s, e]) => e - s),
    budget,
  );
  const parts: Buffer[] = [];
  let from = 0;
  for (const [start, end] of spans) {
    if (end - start <= cap) continue;
    const cut = safeCut(line, start, start + cap);
    parts.push(line.subarray(from, cut), Buffer.from(marker(end - cut, end - start)));
    from = end;
  }
  parts.push(line.subarray(from));
  return Buffer.concat(parts);
}

/** The largest length `cap` for which the strings, each cut to at most `cap`, take `budget` bytes or less. */
function largestCap(lengths: number[], budget: number): number {
  let lo = 0;
  let hi = lengths.reduce((a, b) => Math.max(a, b), 0);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    let sum = 0;
    for (const n of lengths) sum += Math.min(n, mid);
    if (sum <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `at`, moved back so the string's content up to it ends neither inside an escape nor inside a UTF-8 character. */
function safeCut(line: Buffer, start: number, at: number): number {
  let i = start;
  while (i < at) {
    const next = line[i] !== BACKSLASH ? i + 1 : line[i + 1] === 0x75 /* u */ ? i + 6 : i + 2;
    if (next > at) break;
    i = next;
  }
  while (i > start && (line[i] & 0xc0) === 0x80) i--;
  return i;
}
