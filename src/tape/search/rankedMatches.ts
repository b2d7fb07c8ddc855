/** An entry the index matched: its row id and BM25 score. */
export interface RankedMatch {
  id: number;
  score: number;
}

/** Best BM25 first; equal scores the later row first (rows are appended in time order). */
const worse = (scores: Float64Array, ids: Float64Array, a: number, b: number): boolean => scores[a] < scores[b] || (scores[a] === scores[b] && ids[a] < ids[b]);

/**
 * Every match of a query, as two columns (row ids, scores) rather than an object each: a common
 * word matches most of a tape, and an object per match was a third of a search's time in
 * allocation and collection. Handed out best first, a batch at a time (`next`); the first batch is
 * picked through a heap of its size, without sorting them all. Only a search that reads past it
 * sorts everything.
 */
export class RankedMatches {
  private ids = new Float64Array(64);
  private scores = new Float64Array(64);
  private count = 0;
  private sorted: Uint32Array | undefined;
  private given = 0;

  get length(): number {
    return this.count;
  }

  get done(): boolean {
    return this.given >= this.count;
  }

  /** How many were handed out. */
  get judged(): number {
    return this.given;
  }

  push(id: number, score: number): void {
    if (this.count === this.ids.length) {
      const ids = new Float64Array(2 * this.count);
      const scores = new Float64Array(2 * this.count);
      ids.set(this.ids);
      scores.set(this.scores);
      this.ids = ids;
      this.scores = scores;
    }
    this.ids[this.count] = id;
    this.scores[this.count++] = score;
  }

  /** The next `n` best matches. */
  next(n: number): RankedMatch[] {
    const order = this.given === 0 && n < this.count ? this.best(n) : this.allSorted().subarray(this.given, this.given + n);
    this.given += order.length;
    return Array.from(order, (i) => ({ id: this.ids[i], score: this.scores[i] }));
  }

  /** The indexes of the `n` best, best first: a heap whose root is the worst kept. */
  private best(n: number): Uint32Array {
    const { ids, scores } = this;
    const heap = new Uint32Array(n);
    let size = 0;
    const down = (at: number): void => {
      for (;;) {
        const l = 2 * at + 1;
        const r = l + 1;
        let w = at;
        if (l < size && worse(scores, ids, heap[l], heap[w])) w = l;
        if (r < size && worse(scores, ids, heap[r], heap[w])) w = r;
        if (w === at) return;
        [heap[at], heap[w]] = [heap[w], heap[at]];
        at = w;
      }
    };
    for (let i = 0; i < this.count; i++) {
      if (size < n) {
        let at = size++;
        heap[at] = i;
        while (at > 0) {
          const up = (at - 1) >> 1;
          if (!worse(scores, ids, heap[at], heap[up])) break;
          [heap[at], heap[up]] = [heap[up], heap[at]];
          at = up;
        }
      } else if (worse(scores, ids, heap[0], i)) {
        heap[0] = i;
        down(0);
      }
    }
    return heap.sort((a, b) => (worse(scores, ids, a, b) ? 1 : worse(scores, ids, b, a) ? -1 : 0));
  }

  private allSorted(): Uint32Array {
    const { ids, scores } = this;
    this.sorted ??= new Uint32Array(this.count).map((_, i) => i).sort((a, b) => (worse(scores, ids, a, b) ? 1 : worse(scores, ids, b, a) ? -1 : 0));
    return this.sorted;
  }
}
