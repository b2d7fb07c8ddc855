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

// Whether each code unit is a word character: 1 or 0 once tested, -1 before (each unit is tested once).
const wordUnits = new Int8Array(0x10000).fill(-1);
function isWordUnit(unit: number): boolean {
  let known = wordUnits[unit];
  if (known === -1) known = wordUnits[unit] = WORD.test(String.fromCharCode(unit)) ? 1 : 0;
  return known === 1;
}

/** One more than the symbols there are: the code units, the mark and the end. */
const SYMBOLS = 0x10002;

/**
 * The automaton's transitions, in typed arrays sized for the text up front: a list per state (to
 * copy a state's transitions when it is cloned) and an open-addressing table from (state, symbol)
 * to the transition, so no per-state Map is allocated.
 */
class Transitions {
  readonly from: Int32Array;
  readonly symbol: Int32Array;
  readonly to: Int32Array;
  private readonly nextOfState: Int32Array;
  private readonly firstOfState: Int32Array;
  private readonly table: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  count = 0;

  constructor(maxStates: number, maxTransitions: number) {
    this.from = new Int32Array(maxTransitions);
    this.symbol = new Int32Array(maxTransitions);
    this.to = new Int32Array(maxTransitions);
    this.nextOfState = new Int32Array(maxTransitions);
    this.firstOfState = new Int32Array(maxStates).fill(-1);
    let bits = 1;
    while (1 << bits < maxTransitions * 2) bits++;
    this.table = new Int32Array(1 << bits).fill(-1);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  private slot(state: number, symbol: number): number {
    // A multiplicative hash of the pair (its high bits); the table is at least twice the transitions, so probes stay short.
    let slot = Math.imul(Math.imul(state, SYMBOLS) ^ symbol, 0x9e3779b1) >>> this.shift;
    for (let t = this.table[slot]; t !== -1 && (this.from[t] !== state || this.symbol[t] !== symbol); t = this.table[slot]) slot = (slot + 1) & this.mask;
    return slot;
  }

  /** The transition from `state` on `symbol`, or -1. */
  find(state: number, symbol: number): number {
    return this.table[this.slot(state, symbol)];
  }

  /** The state `state` goes to on `symbol`, or -1. */
  target(state: number, symbol: number): number {
    const t = this.find(state, symbol);
    return t === -1 ? -1 : this.to[t];
  }

  add(state: number, symbol: number, to: number): void {
    const t = this.count++;
    this.from[t] = state;
    this.symbol[t] = symbol;
    this.to[t] = to;
    this.nextOfState[t] = this.firstOfState[state];
    this.firstOfState[state] = t;
    this.table[this.slot(state, symbol)] = t;
  }

  /** Gives `clone` every transition of `state`. */
  copy(state: number, clone: number): void {
    for (let t = this.firstOfState[state]; t !== -1; t = this.nextOfState[t]) this.add(clone, this.symbol[t], this.to[t]);
  }
}

export class SubstringIndex {
  private readonly edges: Transitions;
  private readonly link: Int32Array;
  private readonly length: Int32Array;
  private states = 1;
  private last = 0;
  /** Per state: whether what leads to it can be followed by a non-word code unit or the end. */
  private readonly endsWord: Uint8Array;

  constructor(text: string) {
    let symbols = 2;
    for (let i = 0; i < text.length; i++) symbols += isWordUnit(text.charCodeAt(i)) ? 1 : 2;
    // A suffix automaton of n symbols has at most 2n states and 3n transitions.
    const maxStates = 2 * symbols + 1;
    this.edges = new Transitions(maxStates, 3 * symbols + 1);
    this.link = new Int32Array(maxStates);
    this.length = new Int32Array(maxStates);
    this.link[0] = -1;
    this.extend(MARK);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      this.extend(unit);
      if (!isWordUnit(unit)) this.extend(MARK);
    }
    this.extend(END);
    this.endsWord = new Uint8Array(this.states);
    const { from, symbol } = this.edges;
    for (let t = 0; t < this.edges.count; t++) if (symbol[t] === END || (symbol[t] < MARK && !isWordUnit(symbol[t]))) this.endsWord[from[t]] = 1;
  }

  /** Whether `needle` occurs in the text (the empty string does). */
  includes(needle: string): boolean {
    return this.walk(0, needle) !== -1;
  }

  /** Whether `needle` occurs in the text as a word (the empty string does not). */
  occursAsWord(needle: string): boolean {
    if (needle === '') return false;
    const state = this.walk(this.edges.target(0, MARK), needle);
    return state !== -1 && this.endsWord[state] === 1;
  }

  /** The state after reading `needle`, marked, from `state`; -1 when the text has no such substring. */
  private walk(state: number, needle: string): number {
    for (let i = 0; i < needle.length && state !== -1; i++) {
      const unit = needle.charCodeAt(i);
      state = this.edges.target(state, unit);
      if (state !== -1 && !isWordUnit(unit)) state = this.edges.target(state, MARK);
    }
    return state;
  }

  // The standard online construction (Blumer et al.): one new state per symbol, at most one clone.
  private extend(symbol: number): void {
    const { edges, link, length } = this;
    const current = this.states++;
    length[current] = length[this.last] + 1;
    let p = this.last;
    while (p !== -1 && edges.find(p, symbol) === -1) {
      edges.add(p, symbol, current);
      p = link[p];
    }
    if (p === -1) link[current] = 0;
    else {
      const q = edges.target(p, symbol);
      if (length[p] + 1 === length[q]) link[current] = q;
      else {
        const clone = this.states++;
        length[clone] = length[p] + 1;
        link[clone] = link[q];
        edges.copy(q, clone);
        for (let t = edges.find(p, symbol); t !== -1 && edges.to[t] === q; t = p === -1 ? -1 : edges.find(p, symbol)) {
          edges.to[t] = clone;
          p = link[p];
        }
        link[q] = clone;
        link[current] = clone;
      }
    }
    this.last = current;
  }
}
