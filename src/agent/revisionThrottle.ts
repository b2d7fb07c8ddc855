/** How often a streaming answer is written as a `pending` revision. */
export interface RevisionThrottleSettings {
  /** At most one revision per this many ms of streaming... */
  intervalMs: number;
  /** ...unless this many characters arrived since the last one. */
  maxChars: number;
}

export const DEFAULT_REVISION_THROTTLE: RevisionThrottleSettings = { intervalMs: 250, maxChars: 2048 };

/**
 * Decides when the text streamed so far is worth a revision. Each revision stores the whole text,
 * so one per token would make a long answer's storage quadratic; a handful keeps a crash from losing
 * more than a moment of it and lets a follower show it growing.
 */
export class RevisionThrottle {
  private lastAt: number;
  private lastLength = 0;

  constructor(
    private readonly settings: RevisionThrottleSettings,
    private readonly now: () => number,
  ) {
    this.lastAt = now();
  }

  /** Whether a revision is due now that the text is `length` characters long; if so, it counts as written. */
  due(length: number): boolean {
    const at = this.now();
    if (length === this.lastLength) return false;
    if (at - this.lastAt < this.settings.intervalMs && length - this.lastLength < this.settings.maxChars) return false;
    this.lastAt = at;
    this.lastLength = length;
    return true;
  }
}
