import { projectionView, type AnyProjection } from '../tape/projections/projection';
import type { TapeReader } from '../store/lineage';

/** Entries between two kept states: a position is at most this many entries past one. */
const CHECKPOINT_EVERY = 512;

/**
 * The projections' views at any position of one session. A projection's `apply` never changes the
 * state it is given, so states are kept as they are (no copies) every CHECKPOINT_EVERY entries,
 * made as the replay first passes them; a position costs one kept state plus the entries after it.
 */
export class ProjectionTrail {
  /** States of every projection after entry k * CHECKPOINT_EVERY, at index k. */
  private readonly kept: unknown[][];
  /**
   * The states at the last position asked for. A step forward goes on from them: they are the
   * newest states of their logs, so appending to them is in place and their views catch up
   * incrementally, where going on from a kept state (whose logs have grown past it) copies the logs
   * and reduces them again from the start.
   */
  private last: { at: number; states: unknown[] } | null = null;

  constructor(
    private readonly reader: TapeReader,
    private readonly sessionId: string,
    private readonly projections: readonly AnyProjection[],
  ) {
    this.kept = [projections.map((p) => p.init())];
  }

  /** The views at `entryId`, by projection key. */
  viewsAt(entryId: number): Record<string, unknown> {
    const k = Math.floor(entryId / CHECKPOINT_EVERY);
    while (this.kept.length <= k) {
      const from = (this.kept.length - 1) * CHECKPOINT_EVERY;
      this.kept.push(this.advance(this.kept[this.kept.length - 1], from, from + CHECKPOINT_EVERY));
    }
    const fromLast = this.last !== null && this.last.at <= entryId && this.last.at >= k * CHECKPOINT_EVERY;
    const states = fromLast ? this.advance(this.last!.states, this.last!.at, entryId) : this.advance(this.kept[k], k * CHECKPOINT_EVERY, entryId);
    this.last = { at: entryId, states };
    return Object.fromEntries(this.projections.map((p, i) => [p.key, projectionView(p, states[i])]));
  }

  /** The states after entry `to`, from those after entry `from`. */
  private advance(states: readonly unknown[], from: number, to: number): unknown[] {
    const next = [...states];
    if (to <= from) return next;
    for (const e of this.reader.entries(this.sessionId, { fromEntryId: from + 1, toEntryId: to })) {
      for (let i = 0; i < this.projections.length; i++) next[i] = this.projections[i].apply(next[i], e);
    }
    return next;
  }
}
