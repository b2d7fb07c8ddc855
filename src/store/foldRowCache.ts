import type { FoldRow } from '../tape/fold';

/** Fold rows kept in memory for this many sessions (least recently used go first). */
const SESSIONS = 16;

/**
 * The fold's input rows per session, kept in memory: sql.js's per-row reads cost far more than
 * the fold itself, so refolds and increments must not go back through it. Appends extend a
 * session's rows; entry ids are dense from 1, so the row of entry n is at index n - 1.
 */
export class FoldRowCache {
  private readonly bySession = new Map<string, FoldRow[]>();

  constructor(private readonly read: (sessionId: string, afterEntryId: number) => FoldRow[]) {}

  rows(sessionId: string, afterEntryId: number): FoldRow[] {
    let rows = this.bySession.get(sessionId);
    if (rows === undefined) {
      // A caller that wants a tail of an uncached session gets it without caching the whole session.
      if (afterEntryId > 0) return this.read(sessionId, afterEntryId);
      rows = this.read(sessionId, 0);
    }
    // Re-insertion keeps the Map in least-recently-used order for eviction.
    this.bySession.delete(sessionId);
    this.bySession.set(sessionId, rows);
    if (this.bySession.size > SESSIONS) this.bySession.delete(this.bySession.keys().next().value as string);
    return rows.slice(Math.max(0, afterEntryId));
  }

  /** New rows of a session, in entry id order, right after the ones cached. */
  extend(sessionId: string, rows: readonly FoldRow[]): void {
    this.bySession.get(sessionId)?.push(...rows);
  }

  clear(): void {
    this.bySession.clear();
  }
}
