import { VIEW_ASSEMBLED, ATTEMPT_EVENT } from '../tape/entryNames';
import type { SessionReads } from './sessionReads';
import { manifestOfEntry } from '../tape/manifest';
import { contextPressureProjection, DEFAULT_CONTEXT_WINDOW, pressureOf, type ContextEstimate } from '../tape/projections/contextPressure';
import { createProjectionRegistry } from '../tape/projections/index';
import { ProjectionRunner } from '../tape/projections/projection';
import { titleProjection } from '../tape/projections/title';
import { todosProjection, type TodosView } from '../tape/projections/todos';
import { tokenUsageProjection, type TokenUsage } from '../tape/projections/tokenUsage';
import { knownContextWindow } from '../tape/modelWindows';
import { toolStatsProjection, type ToolStat } from '../tape/projections/toolStats';
import type { ProjectionsView } from '../protocol/inspector';

export interface WindowBasis {
  contextWindow: number;
  /** `manifest`: the window the last request was assembled for; `model`: the known window of the model the session last called; `assumed`: neither is known. */
  windowSource: 'manifest' | 'model' | 'assumed';
  model: string | null;
}

/**
 * The window the gauge measures against: the one the session's last request was assembled for, as
 * its manifest recorded it (the model actually in use, from its provider's model list); else the
 * known window of the model its last model call names (another agent's session records the model,
 * not its window: src/tape/modelWindows.ts); else DEFAULT_CONTEXT_WINDOW, said to be assumed.
 */
function contextWindowOf(store: SessionReads, sessionId: string): WindowBasis {
  const rows = store.foldRows(sessionId, 0);
  let model: string | null = null;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (row.kind !== 'event') continue;
    if (row.name === VIEW_ASSEMBLED) {
      try {
        const m = manifestOfEntry(store.requireEntry(sessionId, row.entryId));
        return { contextWindow: m.tokenBudget.contextWindow, windowSource: 'manifest', model: m.model.id };
      } catch {
        // An unreadable manifest says nothing about the window; an older one may.
      }
    } else if (model === null && row.name === ATTEMPT_EVENT) {
      const data = store.requireEntry(sessionId, row.entryId).payload.data as { model?: unknown } | null;
      if (typeof data?.model === 'string' && data.model !== '') model = data.model;
    }
  }
  const known = model === null ? null : knownContextWindow(model);
  return known === null ? { contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'assumed', model } : { contextWindow: known, windowSource: 'model', model };
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
      contextPressure: (() => {
        const basis = contextWindowOf(this.store, sessionId);
        return {
          ...pressureOf(v[contextPressureProjection.key] as ContextEstimate, basis.contextWindow),
          windowSource: basis.windowSource,
          model: basis.model,
        };
      })(),
    };
  }
}
