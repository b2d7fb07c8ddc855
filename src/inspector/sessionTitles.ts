import type { SessionReads } from './sessionReads';
import { sessionTitleOf } from '../tape/sessionTitle';

/**
 * Session titles for the session list (`sessionTitleOf`), one string kept per session and
 * computed again only when the session grew or the store was reloaded.
 */
export class SessionTitles {
  private readonly cache = new Map<string, { generation: number; head: number; title: string | null }>();

  constructor(private readonly store: SessionReads) {}

  title(sessionId: string): string | null {
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    const cached = this.cache.get(sessionId);
    if (cached?.generation === generation && cached.head === head) return cached.title;
    const title = sessionTitleOf(this.store, sessionId);
    this.cache.set(sessionId, { generation, head, title });
    return title;
  }
}
