import { byRank } from '../tape/search/entrySearch';
import type { Entry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { FoldSource } from '../tape/foldCache';
import { FORK_START_ENTRY_ID, forkStartOf, type ForkStartState } from '../tape/fork';
import type { EntrySource } from '../tape/projections/projection';
import type { EntryFilter } from './queries';
import type { SearchHit, SearchOptions } from './search';
import type { TapeStore } from './tapeStore';

/**
 * What reads a session as its conversation: the fold, context assembly, projections, the tape
 * tools and the CLI's `view`, `context` and `search`. The TapeStore is one for plain sessions; a
 * fork needs this reader, because it reads its parent through (SPEC 2.8) instead of holding a copy.
 */
export interface TapeReader extends FoldSource, EntrySource {
  getEntry(sessionId: string, entryId: number): Entry | undefined;
  requireEntry(sessionId: string, entryId: number): Entry;
  entries(sessionId: string, filter?: EntryFilter): Entry[];
  search(query: string, options: SearchOptions & { sessionId: string }): SearchHit[];
  /** Where the entry at a position of a session's view is stored. */
  origin(sessionId: string, entryId: number): { sessionId: string; entryId: number };
  /** The position in its session's view of an entry the session stores itself (the inverse of `origin` for its own entries). */
  positionOf(sessionId: string, storedEntryId: number): number;
  /** The `fork/start` state when `sessionId` is a fork, else null. */
  forkOf(sessionId: string): ForkStartState | null;
}

/** Deeper lineages are refused: only a damaged or hand-made tape has them. */
const MAX_DEPTH = 32;
/** Forks are made with this in their id, so other sessions skip the look at entry 2. */
const FORK_MARK = '::fork::';

/**
 * The read-through view of a fork. Its positions are its parent's view positions 1..p (p, the fork
 * point) followed by its own entries from `fork/start` on: the fork's entry k sits at p + k - 1.
 * So ids in a fork's fold, manifests and context are positions of one dense sequence, as for any
 * session; its own `session/start` is hidden behind the parent's. Entries come back re-addressed
 * to their position (`sessionId` the fork's); `origin` tells where one is stored.
 */
class LineageReader implements TapeReader {
  private readonly forks = new Map<string, { generation: number; fork: ForkStartState | null }>();

  constructor(private readonly store: TapeStore) {}

  generation(): number {
    return this.store.generation();
  }

  forkOf(sessionId: string): ForkStartState | null {
    if (!sessionId.includes(FORK_MARK)) return null;
    const generation = this.store.generation();
    const cached = this.forks.get(sessionId);
    if (cached !== undefined && cached.generation === generation) return cached.fork;
    const second = this.store.getEntry(sessionId, FORK_START_ENTRY_ID);
    const fork = forkStartOf(second);
    // Entry 2 never changes once written; before it exists, the session may still become a fork.
    if (second !== undefined) this.forks.set(sessionId, { generation, fork });
    return fork;
  }

  /** The fork of `sessionId` with its parent checked to be a real ancestor, not a loop. */
  private parentOf(sessionId: string, depth: number): ForkStartState | null {
    const fork = this.forkOf(sessionId);
    if (fork === null) return null;
    if (depth >= MAX_DEPTH || fork.parentSessionId === sessionId)
      throw new Error(`session ${JSON.stringify(sessionId)}: its fork lineage is deeper than ${MAX_DEPTH} or loops`);
    return fork;
  }

  headEntryId(sessionId: string): number {
    return this.head(sessionId, 0);
  }

  private head(sessionId: string, depth: number): number {
    const own = this.store.headEntryId(sessionId);
    const fork = this.parentOf(sessionId, depth);
    return fork === null ? own : fork.parentHeadEntryId + own - 1;
  }

  origin(sessionId: string, entryId: number, depth = 0): { sessionId: string; entryId: number } {
    const fork = this.parentOf(sessionId, depth);
    if (fork === null) return { sessionId, entryId };
    if (entryId <= fork.parentHeadEntryId) return this.origin(fork.parentSessionId, entryId, depth + 1);
    return { sessionId, entryId: entryId - fork.parentHeadEntryId + 1 };
  }

  positionOf(sessionId: string, storedEntryId: number): number {
    const fork = this.forkOf(sessionId);
    return fork === null ? storedEntryId : storedEntryId + fork.parentHeadEntryId - 1;
  }

  foldRows(sessionId: string, afterEntryId: number): FoldRow[] {
    return this.rows(sessionId, afterEntryId, 0);
  }

  private rows(sessionId: string, after: number, depth: number): FoldRow[] {
    const fork = this.parentOf(sessionId, depth);
    if (fork === null) return this.store.foldRows(sessionId, after);
    const p = fork.parentHeadEntryId;
    const inherited = after < p ? this.rows(fork.parentSessionId, after, depth + 1).filter((r) => r.entryId <= p) : [];
    const own = this.store.foldRows(sessionId, Math.max(after - p + 1, FORK_START_ENTRY_ID - 1));
    return [...inherited, ...own.map((r) => ({ ...r, entryId: r.entryId + p - 1 }))];
  }

  getEntry(sessionId: string, entryId: number): Entry | undefined {
    const at = this.origin(sessionId, entryId);
    if (at.sessionId === sessionId && at.entryId === entryId) return this.store.getEntry(sessionId, entryId);
    const e = this.store.getEntry(at.sessionId, at.entryId);
    return e && { ...e, sessionId, entryId };
  }

  requireEntry(sessionId: string, entryId: number): Entry {
    const entry = this.getEntry(sessionId, entryId);
    if (entry === undefined) throw new Error(`entry ${sessionId}#${entryId} is missing`);
    return entry;
  }

  entriesAfter(sessionId: string, afterEntryId: number): Entry[] {
    return this.entries(sessionId, { fromEntryId: afterEntryId + 1 });
  }

  entries(sessionId: string, filter: EntryFilter = {}): Entry[] {
    return this.entriesOf(sessionId, filter, 0);
  }

  private entriesOf(sessionId: string, filter: EntryFilter, depth: number): Entry[] {
    const fork = this.parentOf(sessionId, depth);
    if (fork === null) return this.store.entries(sessionId, filter);
    const p = fork.parentHeadEntryId;
    const from = filter.fromEntryId ?? 1;
    const to = filter.toEntryId ?? Number.MAX_SAFE_INTEGER;
    const out: Entry[] = [];
    if (from <= p) {
      for (const e of this.entriesOf(fork.parentSessionId, { ...filter, toEntryId: Math.min(to, p) }, depth + 1)) out.push({ ...e, sessionId });
    }
    if (filter.limit !== undefined && out.length >= filter.limit) return out.slice(0, filter.limit);
    if (to > p) {
      const own = this.store.entries(sessionId, {
        ...filter,
        fromEntryId: Math.max(from - p + 1, FORK_START_ENTRY_ID),
        toEntryId: to === Number.MAX_SAFE_INTEGER ? undefined : to - p + 1,
        limit: filter.limit === undefined ? undefined : filter.limit - out.length,
      });
      for (const e of own) out.push({ ...e, entryId: e.entryId + p - 1 });
    }
    return out;
  }

  search(query: string, options: SearchOptions & { sessionId: string }): SearchHit[] {
    return this.searchOf(query, options, 0);
  }

  private searchOf(query: string, options: SearchOptions & { sessionId: string }, depth: number): SearchHit[] {
    const { sessionId } = options;
    const fork = this.parentOf(sessionId, depth);
    if (fork === null) return this.store.search(query, options);
    const p = fork.parentHeadEntryId;
    const limit = options.limit ?? 20;
    const inherited = this.searchOf(query, { ...options, sessionId: fork.parentSessionId, toEntryId: Math.min(options.toEntryId ?? p, p) }, depth + 1);
    const own = this.store
      .search(query, {
        ...options,
        fromEntryId: Math.max((options.fromEntryId ?? 1) - p + 1, FORK_START_ENTRY_ID),
        toEntryId: options.toEntryId === undefined ? undefined : options.toEntryId - p + 1,
      })
      .map((h) => ({ ...h, entryId: h.entryId + p - 1 }));
    return [...own, ...inherited.map((h) => ({ ...h, sessionId }))].sort(byRank).slice(0, limit);
  }
}

/**
 * A store with its host's one lineage reader (an open tape's, src/agent/session/openTape.ts): what
 * code that reads sessions as conversations takes from its host, in any layer, instead of calling
 * readerOf itself.
 */
export interface ReadableTape {
  readonly store: TapeStore;
  readonly reader: TapeReader;
}

const readers = new WeakMap<TapeStore, TapeReader>();

/** The reader of `store`, one per store so its caches are shared. */
export function readerOf(store: TapeStore): TapeReader {
  let reader = readers.get(store);
  if (reader === undefined) {
    reader = new LineageReader(store);
    readers.set(store, reader);
  }
  return reader;
}
