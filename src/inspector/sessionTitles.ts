import type { SessionReads } from './sessionReads';
import { RETRACTED_EVENT, type Entry } from '../tape/entry';
import { foldAll } from '../tape/fold';
import { projectionView, runProjection } from '../tape/projections/projection';
import { TITLE_EVENT, titleProjection } from '../tape/projections/title';

const titleOf = (entries: readonly Entry[]): string | null => projectionView(titleProjection, runProjection(titleProjection, entries));

/**
 * Session titles for the session list, as `titleProjection` names them, reading only the entries
 * that can decide one: the `session/title` events, else the shown version of the first effective
 * user messages, found by folding the message rows kept in memory. Running the projection over a
 * session reads and parses every entry and keeps a log of every message; this reads a handful of
 * entries and keeps one string per session.
 */
export class SessionTitles {
  private readonly cache = new Map<string, { generation: number; head: number; title: string | null }>();

  constructor(private readonly store: SessionReads) {}

  title(sessionId: string): string | null {
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    const cached = this.cache.get(sessionId);
    if (cached?.generation === generation && cached.head === head) return cached.title;
    const title = this.compute(sessionId);
    this.cache.set(sessionId, { generation, head, title });
    return title;
  }

  private compute(sessionId: string): string | null {
    const explicit = titleOf(this.store.entries(sessionId, { kind: 'event', name: TITLE_EVENT }));
    if (explicit !== null) return explicit;
    const rows = this.store.foldRows(sessionId, 0).filter((r) => r.kind === 'message' || (r.kind === 'event' && r.name === RETRACTED_EVENT));
    // The projection folds without pending messages: a message still streaming does not name the session.
    for (const m of foldAll(rows, { includePending: false }).messages) {
      if (m.role !== 'user') continue;
      const title = titleOf([this.store.requireEntry(sessionId, m.entryId)]);
      if (title !== null) return title;
    }
    return null;
  }
}
