/**
 * The one tokenizer of every search (src/tape/search/entrySearch.ts): what the tape's full-text
 * index holds, what a query is cut into, and which words a snippet marks. FTS4's "simple"
 * tokenizer cuts at ASCII characters other than letters and digits and lower-cases ASCII only, so
 * the text goes through `normalForm` first, both when an entry is indexed and when a query is read:
 * - NFKC and lower case (`Ｈｅｌｌｏ` is `hello`, `ﬁ` is `fi`; `ß` stays `ß`, not `ss`);
 * - non-ASCII punctuation, symbols and spaces separate words as ASCII ones do;
 * - every Han, Hiragana, Katakana and Hangul character is a token of its own: CJK text has no
 *   spaces to cut at, and a query's CJK run is searched as the phrase of its characters, which is
 *   a substring match.
 * `searchTokens` gives the same terms with the offsets of the text as written, for snippets.
 */

export interface SearchToken {
  term: string;
  /** UTF-16 offsets into the text tokenised: the word as written, before normalisation. */
  start: number;
  end: number;
}

const CJK_CHAR = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u30fc]';
const CJK = new RegExp(CJK_CHAR, 'gu');
// Non-ASCII punctuation, symbols and spaces would otherwise glue onto neighbouring tokens. ASCII
// is left out by the pattern, not by a replacer function: most text is ASCII, and a callback for
// every space made this the costliest step of indexing an append.
const NON_ASCII_SEPARATOR = /(?![\x00-\x7f])[\p{P}\p{S}\p{Z}]/gu;
const NON_ASCII = /[^\x00-\x7f]/;
/** ASCII text is its own normal form but for case, and its tokens are its runs of letters and digits. */
export const isAscii = (text: string): boolean => !NON_ASCII.test(text);
/** What FTS4's simple tokenizer cuts at. */
export const SEPARATORS = /[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/;
const ASCII_WORD = /[A-Za-z0-9]+/g;
/**
 * A run of ASCII that no mark follows (NFKC leaves it as it is), or a character with the marks
 * that follow it (half-width voicing marks among them): what NFKC composes together.
 */
const CLUSTER = /([\x00-\x7f]+)(?![\p{M}\uff9e\uff9f])|\P{M}[\p{M}\uff9e\uff9f]*|[\p{M}\uff9e\uff9f]+/gu;

/** The text as the index holds it: FTS4's simple tokenizer then finds exactly the tokens above. */
export function normalForm(text: string): string {
  // NFKC and both patterns change nothing in ASCII text, most of what is indexed; skipping them
  // took a fifth off the JS side of indexing an append.
  if (isAscii(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().replace(NON_ASCII_SEPARATOR, ' ').replace(CJK, ' $& ');
}

/** The terms of `text`, in text order: the index's tokens. */
export const searchTerms = (text: string): string[] => normalForm(text).split(SEPARATORS).filter(Boolean);

/**
 * A token of the normal form's text: a CJK character, or a run of what is neither one nor a
 * separator (ASCII but letters and digits; non-ASCII punctuation, symbols, spaces).
 */
const TOKEN = new RegExp(`(${CJK_CHAR})|[[^\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f\\p{P}\\p{S}\\p{Z}]--${CJK_CHAR}]+`, 'gv');

/**
 * The NFKC, lower-case form of `text`, and for each of its code units the span of `text` it came
 * from; no spans when that is the code unit's own (text already in NFKC, nearly all). Otherwise
 * each character with its marks is normalised on its own (memoised: a CJK text repeats its
 * characters).
 */
function mapped(text: string): { form: string; from: number[] | null; to: number[] | null } {
  if (text.normalize('NFKC') === text) {
    const lower = text.toLowerCase();
    if (lower.length === text.length) return { form: lower, from: null, to: null };
  }
  const from: number[] = [];
  const to: number[] = [];
  let form = '';
  const memo = new Map<string, string>();
  for (const m of text.matchAll(CLUSTER)) {
    if (m[1] !== undefined) {
      // Mostly ASCII around a few other characters: taken whole, each unit its own span.
      for (let i = 0; i < m[0].length; i++) {
        from.push(m.index + i);
        to.push(m.index + i + 1);
      }
      form += m[0];
      continue;
    }
    let n = memo.get(m[0]);
    if (n === undefined) memo.set(m[0], (n = m[0].normalize('NFKC')));
    for (let i = 0; i < n.length; i++) {
      from.push(m.index);
      to.push(m.index + m[0].length);
    }
    form += n;
  }
  const lower = form.toLowerCase();
  // Lower case keeps the length but for a few letters (`İ`): then each character's span is found
  // by its own lower case's length (the text's lower case, a final sigma's context included).
  if (lower.length === form.length) return { form: lower, from, to };
  const out = { form: lower, from: [] as number[], to: [] as number[] };
  let i = 0;
  for (const c of form) {
    for (let k = c.toLowerCase().length; k > 0; k--) {
      out.from.push(from[i]);
      out.to.push(to[i + c.length - 1]);
    }
    i += c.length;
  }
  return out;
}

/** The tokens of `text`, in text order: `searchTerms(text)` with where each is written. */
export function searchTokens(text: string): SearchToken[] {
  const tokens: SearchToken[] = [];
  if (isAscii(text)) {
    // Lower-cased once, not token by token: ASCII keeps every offset, and a hit's text is read whole.
    const lower = text.toLowerCase();
    ASCII_WORD.lastIndex = 0;
    for (let m = ASCII_WORD.exec(lower); m !== null; m = ASCII_WORD.exec(lower)) tokens.push({ term: m[0], start: m.index, end: m.index + m[0].length });
    return tokens;
  }
  const { form, from, to } = mapped(text);
  for (const m of form.matchAll(TOKEN)) {
    const end = m.index + m[0].length;
    tokens.push({ term: m[0], start: from === null ? m.index : from[m.index], end: to === null ? end : to[end - 1] });
  }
  return tokens;
}
