/** One committed transaction of appends to one session (SPEC 2.2), as change listeners see it. */
export interface AppendEvent {
  sessionId: string;
  firstEntryId: number;
  lastEntryId: number;
}

export type AppendListener = (event: AppendEvent) => void;

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
