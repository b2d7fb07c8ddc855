import type { Entry } from '../entry';
import type { Projection } from './projection';

/**
 * Per tool name: how often it was called and how the calls ended. It counts what happened on the
 * tape (retracted turns included), keyed by (messageId, toolCallId) so a revised row counts once.
 */
export interface ToolStat {
  calls: number;
  ok: number;
  error: number;
  /** Calls without a result yet. */
  pending: number;
}

type Outcome = 'pending' | 'ok' | 'error';

interface CallRecord {
  name: string;
  called: boolean;
  outcome: Outcome;
}

export interface ToolStatsState {
  readonly byTool: Map<string, ToolStat>;
  readonly calls: Map<string, CallRecord>;
}

function statOf(state: ToolStatsState, name: string): ToolStat {
  let s = state.byTool.get(name);
  if (s === undefined) {
    s = { calls: 0, ok: 0, error: 0, pending: 0 };
    state.byTool.set(name, s);
  }
  return s;
}

const keyOf = (entry: Entry): string => `${String(entry.payload.messageId)}\u0000${String(entry.payload.toolCallId)}`;

export const toolStatsProjection: Projection<ToolStatsState, Record<string, ToolStat>> = {
  key: 'toolStats',
  version: 1,
  init: () => ({ byTool: new Map(), calls: new Map() }),
  apply(state: ToolStatsState, entry: Entry): ToolStatsState {
    if (entry.kind === 'tool_call') {
      const key = keyOf(entry);
      const rec = state.calls.get(key);
      if (rec?.called) return state;
      if (rec === undefined) {
        state.calls.set(key, { name: entry.name, called: true, outcome: 'pending' });
        const s = statOf(state, entry.name);
        s.calls++;
        s.pending++;
      } else {
        // The result was written first (a foreign or repaired tape): the call is counted, never pending.
        rec.called = true;
        statOf(state, rec.name).calls++;
      }
      return { byTool: state.byTool, calls: state.calls };
    }
    if (entry.kind === 'tool_result') {
      const outcome = entry.payload.status;
      if (outcome !== 'ok' && outcome !== 'error') return state;
      const key = keyOf(entry);
      let rec = state.calls.get(key);
      if (rec === undefined) {
        rec = { name: entry.name, called: false, outcome: 'pending' };
        state.calls.set(key, rec);
      }
      if (rec.outcome === outcome) return state;
      const s = statOf(state, rec.name);
      if (rec.outcome !== 'pending') s[rec.outcome]--;
      else if (rec.called) s.pending--;
      s[outcome]++;
      rec.outcome = outcome;
      return { byTool: state.byTool, calls: state.calls };
    }
    return state;
  },
  view: (state) => Object.fromEntries([...state.byTool].map(([name, s]) => [name, { ...s }])),
};
