/** One committed transaction of appends to one session (SPEC 2.2), as change listeners see it. */
export interface AppendEvent {
  sessionId: string;
  firstEntryId: number;
  lastEntryId: number;
}

export type AppendListener = (event: AppendEvent) => void;

interface SessionHead {
  sessionId: string;
  headEntryId: number;
}

/**
 * What a tape read again (a reload, a reopen) holds beyond what was known: one event per session
 * whose head moved past its head in `before`, a new session counting from entry 1.
 */
export function growthEvents(before: readonly SessionHead[], after: readonly SessionHead[]): AppendEvent[] {
  const heads = new Map(before.map((s) => [s.sessionId, s.headEntryId]));
  const events: AppendEvent[] = [];
  for (const s of after) {
    const known = heads.get(s.sessionId) ?? 0;
    if (s.headEntryId > known) events.push({ sessionId: s.sessionId, firstEntryId: known + 1, lastEntryId: s.headEntryId });
  }
  return events;
}

export interface Disposable {
  dispose(): void;
}

/**
 * The store's change notifications. A listener that throws does not keep the others from hearing
 * of the append, nor the append from completing; its error goes to `onListenerError`.
 */
export class AppendEvents {
  private readonly listeners = new Set<AppendListener>();

  constructor(private readonly onListenerError: (e: unknown) => void = (e) => console.error('agent-tape: an append listener failed:', e)) {}

  listen(listener: AppendListener): Disposable {
    // A wrapper, so one function registered twice is two subscriptions, each disposed on its own.
    const wrapped: AppendListener = (e) => listener(e);
    this.listeners.add(wrapped);
    return { dispose: () => this.listeners.delete(wrapped) };
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  fire(event: AppendEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }
}
