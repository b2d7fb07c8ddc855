import { applyRows, newFoldState, viewOf, type EffectiveView, type FoldOptions, type FoldRow, type FoldState } from './fold';

/**
 * What the cache reads from (the store implements it). `generation` changes whenever previously
 * folded rows may no longer be what the source holds (re-open, re-import): appends never change it.
 */
export interface FoldSource {
  generation(): number;
  headEntryId(sessionId: string): number;
  foldRows(sessionId: string, afterEntryId: number): FoldRow[];
}

interface Cached {
  generation: number;
  state: FoldState;
}

/**
 * Incremental effective views per session, in the manner of DeepSeek Harness's surface fold: the
 * fold is a pure function of the rows, and the cache only folds the rows after the head it already
 * holds; a generation change (dsh's replaceGeneration) is the only thing that forces a full refold.
 */
export class FoldCache {
  private readonly cached = new Map<string, Cached>();

  /** `maxSessions` bounds memory: a fold state is proportional to its session's size. */
  constructor(
    /** Public for the folds the cache does not keep, such as a context's prefix up to an anchor. */
    readonly source: FoldSource,
    private readonly maxSessions = 32,
  ) {}

  /** The up-to-date view; like any view it is valid until the next call for the same session. */
  view(sessionId: string, options: FoldOptions): EffectiveView {
    const key = `${options.includePending ? 'pending' : 'final'}\u0000${sessionId}`;
    const generation = this.source.generation();
    const head = this.source.headEntryId(sessionId);
    let c = this.cached.get(key);
    // A head behind ours means the source is not the tape we folded, whatever its generation says.
    if (c === undefined || c.generation !== generation || head < c.state.headEntryId) {
      c = { generation, state: newFoldState(options) };
    }
    if (head > c.state.headEntryId) applyRows(c.state, this.source.foldRows(sessionId, c.state.headEntryId));
    // Re-insertion keeps the Map in least-recently-used order for eviction.
    this.cached.delete(key);
    this.cached.set(key, c);
    if (this.cached.size > this.maxSessions) this.cached.delete(this.cached.keys().next().value as string);
    return viewOf(c.state);
  }
}
