import type { NewEntry } from '../tape/entry';

/** The part of the TapeStore the loop writes through. */
export interface AppendTarget {
  /**
   * Must apply appends in the order they are called, as the TapeStore does (an append is visible
   * to reads at once; the promise only tells durability).
   */
  appendMany(sessionId: string, entries: readonly NewEntry[]): Promise<unknown>;
}

/**
 * Appends without waiting for each journal write, so a streaming answer is not held up by the
 * disk; `flush` waits for everything written so far and rethrows the first failure. The loop
 * flushes before every step that reads the tape (assembling a request) and before it returns.
 */
export class TapeWriter {
  private pending: Promise<unknown>[] = [];

  constructor(
    private readonly target: AppendTarget,
    private readonly sessionId: string,
  ) {}

  write(...entries: NewEntry[]): void {
    const written = this.target.appendMany(this.sessionId, entries);
    // Observed at once, so a failure waits for flush instead of being an unhandled rejection.
    written.catch(() => undefined);
    this.pending.push(written);
  }

  async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
  }
}
