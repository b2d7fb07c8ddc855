/**
 * The words of Search All Sessions' snippets and phrase bonus (src/tape/search/sessionSearch.ts): which
 * words of a hit's text are marked, and whether the query's words occur in it in order. (Which
 * entries match is the tape's full-text index's: src/store/search.ts.) Text is cut into runs, each
 * normalised on its own so that every token keeps the offsets of the text a person sees:
 * - a run of letters, marks and digits outside the CJK scripts is one word, NFKC-normalised and
 *   case-folded (lower case of the upper case, so `ß` meets `SS` and `ﬁ` meets `fi`; a final
 *   sigma as any sigma). Everything else (spaces, punctuation, symbols, `_`) separates words;
 * - a run of Han, Hiragana, Katakana and Hangul characters (with `々`, `ー`, voicing and combining marks)
 *   has no spaces to cut at, so it gives its overlapping character pairs (bigrams) and each of its
 *   characters: `上下文压缩` gives 上下, 下文, 文压, 压缩 and the five characters, so a two-character
 *   query such as `压缩` is one term, a longer one all of its bigrams, a single character itself.
 * A token is in the run's `sequence` (what a phrase is matched against) when it is a word, a bigram,
 * or the character of a one-character run.
 */

export interface SearchToken {
  term: string;
  /** UTF-16 offsets into the text tokenised: the word as written, before normalisation. */
  start: number;
  end: number;
  /** Whether the token takes part in phrase matching (words and bigrams; see above). */
  inSequence: boolean;
}

// With the marks the scripts share with others: iteration and prolonged sound marks, spacing and
// half-width voicing marks (combining ones are marks, which a run takes after its first character).
const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u30fc\\u309b\\u309c\\uff70\\uff9e\\uff9f';
// One scan finds both kinds of run; the word class is letters, marks and digits minus the CJK
// scripts (set subtraction needs the `v` flag, Node 20), so a word stops where CJK text starts.
const RUN = new RegExp(`([${CJK_CLASS}][${CJK_CLASS}\\p{M}]*)|([[\\p{L}\\p{M}\\p{N}]--[${CJK_CLASS}]]+)`, 'gv');
const ASCII = /^[\x00-\x7f]*$/;
/** In ASCII text the words are exactly these: nothing to normalise, no CJK (most text, twice as fast). */
const ASCII_WORD = /[A-Za-z0-9]+/g;
/** A folded word that normalisation split or turned into CJK (U+FDFA's spaces, `㊀`): tokenised again. */
const PLAIN_WORD = new RegExp(`^[[\\p{L}\\p{M}\\p{N}]--[${CJK_CLASS}]]+$`, 'v');

/** The normal form a word is indexed and looked up under. */
function foldWord(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize('NFKC').toUpperCase().toLowerCase().replace(/ς/g, 'σ');
}

/** Called per token in text order: the term, its offsets in the text as written, whether it is in the phrase sequence. */
type TokenSink = (term: string, start: number, end: number, inSequence: boolean) => void;

function cjkTokens(run: string, at: number, emit: TokenSink): void {
  const raw = Array.from(run);
  // A lone voicing mark normalises to a space and the combining mark: the space is no character of the run.
  const chars = Array.from(run.normalize('NFKC')).filter((c) => c !== ' ');
  // Offsets per character when normalising kept the count (nearly always); else each token spans the run.
  const starts: number[] = [];
  let offset = at;
  for (const c of raw) {
    starts.push(offset);
    offset += c.length;
  }
  const exact = chars.length === raw.length;
  const startOf = (i: number): number => (exact ? starts[i] : at);
  const endOf = (i: number): number => (exact ? starts[i] + raw[i].length : at + run.length);
  if (chars.length === 1) return emit(chars[0], startOf(0), endOf(0), true);
  for (let i = 0; i < chars.length; i++) {
    emit(chars[i], startOf(i), endOf(i), false);
    if (i + 1 < chars.length) emit(chars[i] + chars[i + 1], startOf(i), endOf(i + 1), true);
  }
}

/** Each token of `text`, in text order. */
function forEachToken(text: string, emit: TokenSink): void {
  if (ASCII.test(text)) {
    ASCII_WORD.lastIndex = 0;
    for (let m = ASCII_WORD.exec(text); m !== null; m = ASCII_WORD.exec(text)) emit(m[0].toLowerCase(), m.index, m.index + m[0].length, true);
    return;
  }
  for (const m of text.matchAll(RUN)) {
    const at = m.index;
    if (m[1] !== undefined) {
      cjkTokens(m[1], at, emit);
      continue;
    }
    const word = m[2];
    const term = foldWord(word);
    if (term === word.toLowerCase() || PLAIN_WORD.test(term)) {
      emit(term, at, at + word.length, true);
      continue;
    }
    // Normalisation changed what the word is made of: its pieces all point at the word as written.
    forEachToken(term, (t, _s, _e, inSequence) => emit(t, at, at + word.length, inSequence));
  }
}

/** The tokens of `text`, in text order. */
export function searchTokens(text: string): SearchToken[] {
  const tokens: SearchToken[] = [];
  forEachToken(text, (term, start, end, inSequence) => tokens.push({ term, start, end, inSequence }));
  return tokens;
}

/** What a query asks for: every term must occur; `sequence` is the phrase its words make. */
export interface QueryTerms {
  /** Distinct, in query order. */
  terms: string[];
  sequence: string[];
  /** The query's last word when it is not CJK (the one still being typed), for prefix matching. */
  lastWord: string | null;
}

/**
 * A query's terms: its words, and for a CJK run its bigrams, or the character itself when the run
 * is one character long. Plain text only: nothing in a query is an operator.
 */
export function queryTerms(query: string): QueryTerms {
  const sequence = searchTokens(query)
    .filter((t) => t.inSequence)
    .map((t) => t.term);
  const last = [...query.matchAll(RUN)].at(-1);
  return { terms: [...new Set(sequence)], sequence, lastWord: last?.[2] === undefined ? null : (searchTokens(last[2]).at(-1)?.term ?? null) };
}
