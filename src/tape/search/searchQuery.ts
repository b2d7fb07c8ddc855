import { searchTerms } from './searchTokens';

/**
 * A query as every search reads it (src/tape/search/entrySearch.ts), in one of two syntaxes that
 * share their words:
 * - `plain` (Search All Sessions, `search-all`: one line typed by a person): whitespace-separated
 *   words, nothing an operator, a word ending in `*` a prefix;
 * - `operators` (`search`, `tape_search`, the inspector's filter): the same words, and `"phrases"`,
 *   `AND`/`OR`/`NOT`/`NEAR`, parentheses.
 * A word is cut by the one tokenizer (searchTokens.ts); one of several tokens (a CJK run,
 * punctuation inside) is the phrase of its tokens. `asYouType` makes the last word of a plain
 * query a prefix when it is not CJK and 3 characters or more (`c*` would name most of a tape).
 */

export interface QueryWord {
  terms: string[];
  /** Its last term also matches the longer terms it begins. */
  prefix: boolean;
}

export interface SearchQuery {
  /** As given, for messages. */
  text: string;
  /** The MATCH expression over the index. */
  match: string;
  /** The words a hit holds (not those after NOT), in query order: what a snippet marks. */
  words: QueryWord[];
}

export type QuerySyntax = 'plain' | 'operators';

/** Bad query syntax (an unterminated quote, unbalanced parentheses). */
export class SearchQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchQueryError';
  }
}

const OPERATOR = /^(AND|OR|NOT|NEAR(\/\d+)?)$/;
const MIN_AS_YOU_TYPE = 3;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u30fc]$/u;

const ftsWord = (w: QueryWord): string => `"${w.terms.join(' ')}${w.prefix ? '*' : ''}"`;

/** The query, or null when it has no words to search for. */
export function parseQuery(text: string, syntax: QuerySyntax, asYouType = false): SearchQuery | null {
  const parts: string[] = [];
  const words: QueryWord[] = [];
  let negated = false;
  const word = (raw: string, prefix: boolean): void => {
    const terms = searchTerms(raw);
    if (terms.length === 0) return;
    const w = { terms, prefix };
    parts.push(ftsWord(w));
    if (!negated) words.push(w);
  };
  if (syntax === 'plain') {
    const raw = text.split(/\s+/).filter(Boolean);
    raw.forEach((r, i) => {
      const star = r.length > 1 && r.endsWith('*');
      const bare = star ? r.slice(0, -1) : r;
      const last = searchTerms(bare).at(-1);
      const typed = asYouType && i === raw.length - 1 && last !== undefined && last.length >= MIN_AS_YOU_TYPE && !CJK.test(last);
      word(bare, star || typed);
    });
  } else {
    let depth = 0;
    const re = /\s*(?:(")|(\()|(\))|([^\s"()]+))/gy;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null && m[0].length) {
      if (m[1]) {
        const close = text.indexOf('"', re.lastIndex);
        if (close < 0) throw new SearchQueryError(`unterminated quote in ${JSON.stringify(text)}`);
        const prefix = text[close + 1] === '*';
        word(text.slice(re.lastIndex, close), prefix);
        re.lastIndex = close + 1 + (prefix ? 1 : 0);
        negated = false;
      } else if (m[2]) {
        depth++;
        parts.push('(');
      } else if (m[3]) {
        if (--depth < 0) throw new SearchQueryError(`unbalanced ")" in ${JSON.stringify(text)}`);
        parts.push(')');
        negated = false;
      } else if (OPERATOR.test(m[4])) {
        parts.push(m[4]);
        negated = m[4] === 'NOT';
      } else {
        const prefix = m[4].length > 1 && m[4].endsWith('*');
        word(prefix ? m[4].slice(0, -1) : m[4], prefix);
        negated = false;
      }
    }
    if (depth) throw new SearchQueryError(`unbalanced "(" in ${JSON.stringify(text)}`);
  }
  if (parts.length === 0 || words.length === 0) return null;
  return { text, match: parts.join(' '), words };
}
