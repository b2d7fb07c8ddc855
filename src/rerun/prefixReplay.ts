import type { TapeReader } from '../store/lineage';
import type { Entry } from '../tape/entry';
import { entryIndex, type FoldRow } from '../tape/fold';
import { FoldCache, type FoldSource } from '../tape/foldCache';

const NONE: ReadonlySet<number> = new Set();

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

/**
 * A session's tape prefixes for one request after another (verification, re-runs): the fold rows
 * are read once and served up to the request's `latestEntryId`, so the cache folds only the rows
 * between two requests, and each entry is read once. Requests come in tape order, so the prefixes
 * only grow (a prefix shorter than the last one costs one refold). A re-run may leave rows out
 * (a dropped context item): the generation changes with the rows left out, so the cache refolds.
 */
export class PrefixReplay implements FoldSource {
  readonly folds = new FoldCache(this);
  /** The session's fold rows through the reader, in entry id order. */
  readonly rows: readonly FoldRow[];
  private readonly loaded = new Map<number, Entry>();
  private cap = 0;
  private omitted = NONE;
  private gen = 0;

  constructor(
    readonly reader: TapeReader,
    readonly sessionId: string,
  ) {
    this.rows = reader.foldRows(sessionId, 0);
  }

  /** Serves the prefix up to `latestEntryId` without the rows of the entry ids in `omit`. */
  at(latestEntryId: number, omit: ReadonlySet<number> = NONE): this {
    this.cap = Math.min(latestEntryId, this.rows.at(-1)?.entryId ?? 0);
    if (!sameSet(omit, this.omitted)) {
      this.omitted = omit;
      this.gen++;
    }
    return this;
  }

  generation(): number {
    return this.gen;
  }

  headEntryId(): number {
    return this.cap;
  }

  foldRows(_sessionId: string, afterEntryId: number): FoldRow[] {
    // The rows are in id order: the first after an id is the first at or after the next one.
    const rows = this.rows.slice(entryIndex(this.rows, afterEntryId + 1), entryIndex(this.rows, this.cap + 1));
    return this.omitted.size === 0 ? rows : rows.filter((r) => !this.omitted.has(r.entryId));
  }

  readonly getEntry = (entryId: number): Entry => this.findEntry(entryId) ?? this.reader.requireEntry(this.sessionId, entryId);

  /** Entry `entryId` of the session (read once, then kept), or undefined when it has none. */
  findEntry(entryId: number): Entry | undefined {
    let e = this.loaded.get(entryId);
    if (e === undefined) {
      e = this.reader.getEntry(this.sessionId, entryId);
      if (e !== undefined) this.loaded.set(entryId, e);
    }
    return e;
  }
}
