import type { SessionReads } from './sessionReads';
import { manifestOfEntry, VIEW_ASSEMBLED } from '../tape/manifest';
import { contextPressureProjection, DEFAULT_CONTEXT_WINDOW, pressureOf, type ContextEstimate } from '../tape/projections/contextPressure';
import { createProjectionRegistry } from '../tape/projections/index';
import { ProjectionRunner } from '../tape/projections/projection';
import { titleProjection } from '../tape/projections/title';
import { todosProjection, type TodosView } from '../tape/projections/todos';
import { tokenUsageProjection, type TokenUsage } from '../tape/projections/tokenUsage';
import { toolStatsProjection, type ToolStat } from '../tape/projections/toolStats';
import type { ProjectionsView } from '../protocol/inspector';

/**
 * The window of the session's last request, as its manifest recorded it: the gauge then measures
 * against the model actually in use. The default window when no readable manifest exists.
 */
function lastContextWindow(store: SessionReads, sessionId: string): number {
  const rows = store.foldRows(sessionId, 0);
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i].kind !== 'event' || rows[i].name !== VIEW_ASSEMBLED) continue;
    try {
      return manifestOfEntry(store.requireEntry(sessionId, rows[i].entryId)).tokenBudget.contextWindow;
    } catch {
      // An unreadable manifest says nothing about the window; an older one may.
    }
  }
  return DEFAULT_CONTEXT_WINDOW;
}

/**
 * The core projections of a session as the inspector shows them. Asked for together, they share
 * one read of the entries, and the runner applies only the entries appended since.
 */
export class ProjectionsReader {
  private readonly runner: ProjectionRunner;

  constructor(private readonly store: SessionReads) {
    this.runner = new ProjectionRunner(store, createProjectionRegistry());
  }

  view(sessionId: string): ProjectionsView {
    const v = this.runner.views(sessionId);
    const stats = v[toolStatsProjection.key] as Record<string, ToolStat>;
    return {
      title: v[titleProjection.key] as string | null,
      todos: (v[todosProjection.key] as TodosView).todos.map(({ content, status }) => ({ content, status })),
      toolStats: Object.keys(stats)
        .sort()
        .map((name) => ({ name, ...stats[name] })),
      tokenUsage: { ...(v[tokenUsageProjection.key] as TokenUsage) },
      contextPressure: pressureOf(v[contextPressureProjection.key] as ContextEstimate, lastContextWindow(this.store, sessionId)),
    };
  }
}
