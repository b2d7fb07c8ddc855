import { VIEWS, entryListFilter, inspectorView, type EntryListFilter, type InspectorView } from '../../src/protocol/inspector';
import * as z from 'zod/mini';

/** What survives a reload of the webview (VS Code keeps it with getState/setState while the panel lives). */
export interface PersistedState {
  view: InspectorView;
  sessionId: string | null;
  filter: EntryListFilter;
  selectedEntryId: number | null;
  scrollTop: number;
  /** Messages, summaries and notes as their exact text instead of rendered Markdown (absent: rendered). */
  raw?: boolean;
}

const persisted = z.object({
  view: inspectorView,
  sessionId: z.nullable(z.string()),
  filter: entryListFilter,
  selectedEntryId: z.nullable(z.number()),
  scrollTop: z.number(),
  raw: z.optional(z.boolean()),
});

const initial = (): PersistedState => ({ view: VIEWS[0], sessionId: null, filter: {}, selectedEntryId: null, scrollTop: 0 });

/**
 * The state store. A saved state from an older build may not match this shape, so it is checked
 * and dropped whole when it does not, rather than half-trusted.
 */
export class StateStore {
  private state: PersistedState;

  constructor(private readonly api: { getState(): unknown; setState(s: PersistedState): void }) {
    const saved = persisted.safeParse(api.getState());
    this.state = saved.success ? saved.data : initial();
  }

  get(): Readonly<PersistedState> {
    return this.state;
  }

  /**
   * Saves at once: a hidden panel can be torn down at any moment, and scroll events already come
   * at most once a frame, so there is nothing worth batching.
   */
  update(patch: Partial<PersistedState>): void {
    this.state = { ...this.state, ...patch };
    this.api.setState(this.state);
  }
}
