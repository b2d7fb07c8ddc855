/**
 * FTS4's "simple" tokenizer splits on ASCII punctuation and spaces only, so a Chinese or Japanese
 * sentence would be one giant token and never match a word inside it. Both the indexed text and the
 * query go through `spaceOut`: every CJK character becomes its own token, and a CJK run in a query
 * becomes a phrase of consecutive characters, which is an exact substring match.
 */
const CJK_CHAR = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u30fc]';
const CJK = new RegExp(CJK_CHAR, 'gu');
const SPACE_IN_CJK_RUN = new RegExp(`(${CJK_CHAR}) (?=${CJK_CHAR})`, 'gu');
// Non-ASCII punctuation, symbols and spaces would otherwise glue onto neighbouring tokens. ASCII
// is left out by the pattern, not by a replacer function: most text is ASCII, and a callback for
// every space made this the costliest step of indexing an append.
const NON_ASCII_SEPARATOR = /(?![\x00-\x7f])[\p{P}\p{S}\p{Z}]/gu;

const NON_ASCII = /[^\x00-\x7f]/;

export function spaceOut(text: string): string {
  // NFKC and both patterns change nothing in ASCII text, most of what is indexed; skipping them
  // took a fifth off the JS side of indexing an append.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().replace(NON_ASCII_SEPARATOR, ' ').replace(CJK, ' $& ');
}

/** `spaceOut`'s result as a person would write it again: the spaces inside CJK runs removed. */
export const unspace = (spaced: string): string => spaced.replace(/\s+/g, ' ').trim().replace(SPACE_IN_CJK_RUN, '$1');
