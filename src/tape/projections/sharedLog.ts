/**
 * An append-only log that projection states share without ever seeing each other's items: a state
 * holds the array and its own length, and reads only `items[0, length)`. Appending to the newest
 * state pushes in place (O(1)); appending to an older one, whose array another state has already
 * extended, copies its prefix first. So `apply` never changes what an earlier state holds, and a
 * run over n entries stays O(n).
 */
export interface SharedLog<T> {
  readonly items: readonly T[];
  readonly length: number;
}

export const emptyLog = <T>(): SharedLog<T> => ({ items: [], length: 0 });

export function appendLog<T>(log: SharedLog<T>, item: T): SharedLog<T> {
  const items = (log.items.length === log.length ? log.items : log.items.slice(0, log.length)) as T[];
  items.push(item);
  return { items, length: log.length + 1 };
}

/**
 * A mutable reduction of shared logs, kept per log array and caught up on demand, so reading the
 * newest state costs only the items appended since the last read. It is a cache of a pure function
 * of the log: reading an older state (or a state whose items were copied) rebuilds from the start.
 * The accumulator it returns is valid until the next call: derive fresh values from it, never keep it.
 */
export class LogReduction<T, A> {
  private readonly memo = new WeakMap<readonly T[], { acc: A; applied: number }>();

  constructor(
    private readonly init: () => A,
    private readonly step: (acc: A, item: T) => void,
  ) {}

  of(log: SharedLog<T>): A {
    let m = this.memo.get(log.items);
    if (m === undefined || m.applied > log.length) {
      m = { acc: this.init(), applied: 0 };
      this.memo.set(log.items, m);
    }
    for (; m.applied < log.length; m.applied++) this.step(m.acc, log.items[m.applied]);
    return m.acc;
  }
}
