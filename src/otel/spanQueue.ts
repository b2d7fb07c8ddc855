import type { GenAiSpan } from './genAiSpans';

export interface QueuedSpan {
  agent: string;
  span: GenAiSpan;
}

/**
 * The spans waiting to be sent, at most `capacity`: when the endpoint is down for long, the oldest
 * make room for the newest (a backend shows what is happening now) and are counted, not kept: a
 * collector that is away must not grow the editor's memory without end.
 */
export class SpanQueue {
  private items: QueuedSpan[] = [];
  private head = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Adds the spans; returns how many of the oldest were dropped to make room. */
  push(spans: readonly QueuedSpan[]): number {
    for (const s of spans) this.items.push(s);
    const dropped = Math.max(0, this.size - this.capacity);
    this.head += dropped;
    // The array is compacted now and then, not on every take: a take is then O(batch).
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }

  /** Removes and returns up to `n` of the oldest. */
  take(n: number): QueuedSpan[] {
    const batch = this.items.slice(this.head, this.head + n);
    this.head += batch.length;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return batch;
  }
}
