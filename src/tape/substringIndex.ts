/**
 * A text indexed once so that whether another text occurs in it, or occurs in it as a word, is
 * answered in time of that other text's length, not of the indexed one's (issue 33: a compaction
 * audit asks this of a summary for each of thousands of facts).
 *
 * "Occurs as a word" means some occurrence is not directly preceded or followed by a letter, digit
 * or underscore. Both are on UTF-16 code units, as `String.prototype.indexOf` is: a surrogate is
 * never a letter.
 *
 * The index is the suffix automaton of the text with a mark after each code unit that is not a
 * word character (and one at the start), and an end symbol. An occurrence preceded by a non-word
 * code unit or the start is then exactly an occurrence of the mark followed by the needle, marked
 * the same way; it is followed by one when the automaton's state after it has a transition on a
 * non-word code unit or the end. States and transitions are linear in the text's length.
 */

const WORD = /[\p{L}\p{N}_]/u;
const MARK = 0x10000;
const END = 0x10001;

let wordTable: Uint8Array | undefined;
/** Whether each code unit is a word character, computed once for all 65,536 by the same test. */
function isWordUnit(unit: number): boolean {
  if (wordTable === undefined) {
    wordTable = new Uint8Array(0x10000);
    for (let u = 0; u < 0x10000; u++) wordTable[u] = WORD.test(String.fromCharCode(u)) ? 1 : 0;
  }
  return wordTable[unit] === 1;
}

export class SubstringIndex {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly link: number[] = [-1];
  private readonly length: number[] = [0];
  private last = 0;
  /** Per state: whether what leads to it can be followed by a non-word code unit or the end. */
  private readonly endsWord: Uint8Array;

  constructor(text: string) {
    this.extend(MARK);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      this.extend(unit);
      if (!isWordUnit(unit)) this.extend(MARK);
    }
    this.extend(END);
    this.endsWord = new Uint8Array(this.next.length);
    this.next.forEach((edges, state) => {
      for (const symbol of edges.keys()) if (symbol === END || (symbol < MARK && !isWordUnit(symbol))) this.endsWord[state] = 1;
    });
  }

  /** Whether `needle` occurs in the text (the empty string does). */
  includes(needle: string): boolean {
    return this.walk(0, needle) !== -1;
  }

  /** Whether `needle` occurs in the text as a word (the empty string does not). */
  occursAsWord(needle: string): boolean {
    if (needle === '') return false;
    const state = this.walk(this.next[0].get(MARK) ?? -1, needle);
    return state !== -1 && this.endsWord[state] === 1;
  }

  /** The state after reading `needle`, marked, from `state`; -1 when the text has no such substring. */
  private walk(state: number, needle: string): number {
    for (let i = 0; i < needle.length && state !== -1; i++) {
      const unit = needle.charCodeAt(i);
      state = this.next[state].get(unit) ?? -1;
      if (state !== -1 && !isWordUnit(unit)) state = this.next[state].get(MARK) ?? -1;
    }
    return state;
  }

  // The standard online construction (Blumer et al.): one new state per symbol, at most one clone.
  private extend(symbol: number): void {
    const { next, link, length } = this;
    const current = length.length;
    length.push(length[this.last] + 1);
    link.push(0);
    next.push(new Map());
    let p = this.last;
    while (p !== -1 && !next[p].has(symbol)) {
      next[p].set(symbol, current);
      p = link[p];
    }
    if (p !== -1) {
      const q = next[p].get(symbol) as number;
      if (length[p] + 1 === length[q]) link[current] = q;
      else {
        const clone = length.length;
        length.push(length[p] + 1);
        link.push(link[q]);
        next.push(new Map(next[q]));
        while (p !== -1 && next[p].get(symbol) === q) {
          next[p].set(symbol, clone);
          p = link[p];
        }
        link[q] = clone;
        link[current] = clone;
      }
    }
    this.last = current;
  }
}
