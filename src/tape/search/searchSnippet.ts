import type { SearchToken } from './searchTokens';

/** A search hit's text as shown: one line, with the offsets of the query's words in it. */
export interface Snippet {
  text: string;
  /** `[start, end)` UTF-16 offsets into `text`, ascending and not overlapping. */
  hits: [number, number][];
}

const WIDTH = 120;
/** How much of the text before the first hit the window shows. */
const LEAD = 30;
const ELLIPSIS = '…';
const BLANK = /[\s\p{Cc}]/u;

const isLowSurrogate = (text: string, i: number): boolean => i > 0 && i < text.length && /[\udc00-\udfff]/.test(text[i]);

function merged(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out.at(-1);
    if (last !== undefined && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/**
 * A window of about 120 characters of `text` around its first hit (from a little before it),
 * whitespace and control characters as single spaces, an ellipsis where it was cut, and every hit
 * inside the window marked. `tokens` are the text's own (searchTokens), `hit` says which are hits.
 */
export function snippetOf(text: string, tokens: readonly SearchToken[], hit: (term: string) => boolean): Snippet {
  const ranges = merged(tokens.filter((t) => hit(t.term)).map((t): [number, number] => [t.start, t.end]));
  let start = ranges.length === 0 ? 0 : Math.max(0, ranges[0][0] - LEAD);
  // Start after a blank when there is one close before the lead's start: whole words read better.
  const blank = text.slice(start, ranges[0]?.[0] ?? start).search(BLANK);
  if (start > 0 && blank >= 0) start += blank + 1;
  if (isLowSurrogate(text, start)) start--;
  let end = Math.min(text.length, Math.max(start + WIDTH, ranges[0]?.[1] ?? 0));
  if (isLowSurrogate(text, end)) end++;

  // Output offset of each text offset in [start, end], blanks collapsed, leading ones dropped.
  const at = new Array<number>(end - start + 1);
  let out = '';
  for (let i = start; i < end; i++) {
    at[i - start] = out.length;
    if (!BLANK.test(text[i])) out += text[i];
    else if (out !== '' && !out.endsWith(' ')) out += ' ';
  }
  at[end - start] = out.length;
  const trimmed = out.trimEnd();
  const lead = start > 0 ? ELLIPSIS.length : 0;
  const hits: [number, number][] = [];
  for (const [s, e] of ranges) {
    if (e <= start || s >= end) continue;
    const from = Math.min(at[Math.max(s, start) - start], trimmed.length);
    const to = Math.min(at[Math.min(e, end) - start], trimmed.length);
    if (to > from) hits.push([from + lead, to + lead]);
  }
  return { text: `${start > 0 ? ELLIPSIS : ''}${trimmed}${end < text.length ? ELLIPSIS : ''}`, hits };
}
