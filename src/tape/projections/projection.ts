import type { Entry } from '../entry';

/**
 * A projection (SPEC 2.4): a pure, synchronous reduction of the tape to something worth showing.
 *
 * `apply` returns the very same state object when the entry does not concern it, so a caller can
 * tell "changed" by identity, and it never changes the state it is given: any earlier state stays
 * valid and can be applied to again (a replay cursor stepping back, a fork). A projection that
 * needs an index (open tool calls, a fold) must not copy it per entry, which would make a full run
 * quadratic: it keeps a SharedLog of the facts it needs, and its view reduces the log through a
 * LogReduction, which caches the reduction and catches up on the new facts only (see sharedLog.ts).
 */
export interface Projection<S, V = S> {
  readonly key: string;
  /** Bumped when the meaning of the state changes, so cached states of older versions are dropped. */
  readonly version: number;
  init(): S;
  apply(state: S, entry: Entry): S;
  view?(state: S): V;
}

// Method parameters are bivariant, so every Projection<S, V> is a Projection<any, unknown>.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: no narrower type admits them all
export type AnyProjection = Projection<any, unknown>;

export const projectionView = <S, V>(p: Projection<S, V>, state: S): V => (p.view ? p.view(state) : (state as unknown as V));

/** A full run over entries in order: what the incremental runner must always agree with. */
export function runProjection<S, V>(p: Projection<S, V>, entries: Iterable<Entry>): S {
  let state = p.init();
  for (const e of entries) state = p.apply(state, e);
  return state;
}

/** The projections a host knows about; code registers here, the store never has to change. */
export class ProjectionRegistry {
  private readonly byKey = new Map<string, AnyProjection>();

  constructor(initial: readonly AnyProjection[] = []) {
    for (const p of initial) this.register(p);
  }

  /** Returns a function that unregisters it. A key is registered once: two meanings for one key would corrupt caches. */
  register(p: AnyProjection): () => void {
    if (this.byKey.has(p.key)) throw new Error(`a projection with key "${p.key}" is already registered`);
    this.byKey.set(p.key, p);
    return () => {
      if (this.byKey.get(p.key) === p) this.byKey.delete(p.key);
    };
  }

  get(key: string): AnyProjection | undefined {
    return this.byKey.get(key);
  }

  list(): AnyProjection[] {
    return [...this.byKey.values()];
  }
}

/** What the runner reads from (the store implements it); `generation` has the same meaning as for the fold cache. */
export interface EntrySource {
  generation(): number;
  headEntryId(sessionId: string): number;
  entriesAfter(sessionId: string, afterEntryId: number): Entry[];
}

interface Slot {
  projection: AnyProjection;
  version: number;
  state: unknown;
  head: number;
}

interface SessionCache {
  generation: number;
  slots: Map<string, Slot>;
}

/**
 * Keeps each projection's state at a head per session and applies only the entries after it.
 * Projections asked for together share one read of the new entries.
 */
export class ProjectionRunner {
  private readonly sessions = new Map<string, SessionCache>();

  constructor(
    private readonly source: EntrySource,
    private readonly registry: ProjectionRegistry,
    private readonly maxSessions = 32,
  ) {}

  /** The up-to-date view of one projection (registered or not). */
  view<S, V>(sessionId: string, projection: Projection<S, V>): V {
    return this.sync(sessionId, [projection])[0] as V;
  }

  /** The views of every registered projection, by key. */
  views(sessionId: string): Record<string, unknown> {
    const all = this.registry.list();
    const views = this.sync(sessionId, all);
    return Object.fromEntries(all.map((p, i) => [p.key, views[i]]));
  }

  private sync(sessionId: string, projections: readonly AnyProjection[]): unknown[] {
    const generation = this.source.generation();
    const head = this.source.headEntryId(sessionId);
    let cache = this.sessions.get(sessionId);
    if (cache === undefined || cache.generation !== generation) cache = { generation, slots: new Map() };
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, cache);
    if (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);

    const slots = projections.map((p) => {
      let slot = cache.slots.get(p.key);
      // Another projection under the same key, a new version, or a source that went backwards: start over.
      if (slot === undefined || slot.projection !== p || slot.version !== p.version || slot.head > head) {
        slot = { projection: p, version: p.version, state: p.init(), head: 0 };
        cache.slots.set(p.key, slot);
      }
      return slot;
    });
    const from = Math.min(...slots.map((s) => s.head));
    if (from < head) {
      for (const e of this.source.entriesAfter(sessionId, from)) {
        for (const s of slots) {
          if (e.entryId > s.head) {
            s.state = s.projection.apply(s.state, e);
            s.head = e.entryId;
          }
        }
      }
    }
    return slots.map((s) => projectionView(s.projection, s.state));
  }
}
