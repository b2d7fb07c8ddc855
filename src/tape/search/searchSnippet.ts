import type { QueryWord } from './searchQuery';
import { isAscii, searchTokens, type SearchToken } from './searchTokens';

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

/** Whether `term` is what a query word's `i`th term asks for. */
const fits = (w: QueryWord, i: number, term: string): boolean => (w.prefix && i === w.terms.length - 1 ? term.startsWith(w.terms[i]) : term === w.terms[i]);

/**
 * Where the text says each query word: every run of its tokens (searchTokens) that is a word's
 * terms in order, as the index matched it (a CJK run is the phrase of its characters).
 */
export function hitRanges(tokens: readonly SearchToken[], words: readonly QueryWord[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const w of words) {
    for (let i = 0; i + w.terms.length <= tokens.length; i++) {
      let j = 0;
      while (j < w.terms.length && fits(w, j, tokens[i + j].term)) j++;
      if (j === w.terms.length) ranges.push([tokens[i].start, tokens[i + j - 1].end]);
    }
  }
  return ranges;
}

const ASCII_TERM = /^[a-z0-9]+$/;

/**
 * Whether the query's words, all their terms in query order, occur consecutively in `text`'s
 * tokens (the phrase bonus of the ranking); a query of one word has none (every match is that
 * word). ASCII text is matched by one expression over its lower case, the tokens being its runs of
 * letters and digits: tokenising every match the bonus is judged on was most of a two-word search.
 */
export function hasPhrase(text: string, words: readonly QueryWord[]): boolean {
  if (words.length < 2) return false;
  const phrase: QueryWord = { terms: words.flatMap((w) => w.terms), prefix: words[words.length - 1].prefix };
  if (!isAscii(text)) return hitRanges(searchTokens(text), [phrase]).length > 0;
  if (!phrase.terms.every((t) => ASCII_TERM.test(t))) return false;
  return new RegExp(`(?<![a-z0-9])${phrase.terms.join('[^a-z0-9]+')}${phrase.prefix ? '' : '(?![a-z0-9])'}`).test(text.toLowerCase());
}

/** The snippet with its hits in «», as the CLI and the tools print it. */
export function markedText({ text, hits }: Snippet): string {
  let out = '';
  let at = 0;
  for (const [start, end] of hits) {
    out += `${text.slice(at, start)}«${text.slice(start, end)}»`;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * A window of about 120 characters of `text` around its first hit (from a little before it),
 * whitespace and control characters as single spaces, an ellipsis where it was cut, and every hit
 * inside the window marked. `found` are `hitRanges` of the text.
 */
export function snippetOf(text: string, found: [number, number][]): Snippet {
  const ranges = merged(found);
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
