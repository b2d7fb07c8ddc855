import type { Entry } from '../entry';
import { pairKey } from '../toolPairs';
import type { Projection } from './projection';
import { appendLog, emptyLog, LogReduction, type SharedLog } from './sharedLog';

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

interface ToolFact {
  readonly key: string;
  readonly name: string;
  /** 'call' for a tool_call row, else the result's outcome. */
  readonly fact: 'call' | 'ok' | 'error';
}

/** The tool rows, in tape order; the counts are a reduction of them. */
export type ToolStatsState = SharedLog<ToolFact>;

interface CallRecord {
  name: string;
  called: boolean;
  outcome: 'pending' | 'ok' | 'error';
}

interface Counts {
  readonly byTool: Map<string, ToolStat>;
  readonly calls: Map<string, CallRecord>;
}

function statOf(counts: Counts, name: string): ToolStat {
  let s = counts.byTool.get(name);
  if (s === undefined) {
    s = { calls: 0, ok: 0, error: 0, pending: 0 };
    counts.byTool.set(name, s);
  }
  return s;
}

function count(counts: Counts, { key, name, fact }: ToolFact): void {
  let rec = counts.calls.get(key);
  if (fact === 'call') {
    if (rec?.called) return;
    if (rec === undefined) {
      counts.calls.set(key, { name, called: true, outcome: 'pending' });
      const s = statOf(counts, name);
      s.calls++;
      s.pending++;
    } else {
      // The result was written first (a foreign or repaired tape): the call is counted, never pending.
      rec.called = true;
      statOf(counts, rec.name).calls++;
    }
    return;
  }
  if (rec === undefined) {
    rec = { name, called: false, outcome: 'pending' };
    counts.calls.set(key, rec);
  }
  if (rec.outcome === fact) return;
  const s = statOf(counts, rec.name);
  if (rec.outcome !== 'pending') s[rec.outcome]--;
  else if (rec.called) s.pending--;
  s[fact]++;
  rec.outcome = fact;
}

const counted = new LogReduction<ToolFact, Counts>(() => ({ byTool: new Map(), calls: new Map() }), count);

const keyOf = (entry: Entry): string => pairKey(String(entry.payload.messageId), String(entry.payload.toolCallId));

export const toolStatsProjection: Projection<ToolStatsState, Record<string, ToolStat>> = {
  key: 'toolStats',
  version: 2,
  init: () => emptyLog(),
  apply(state: ToolStatsState, entry: Entry): ToolStatsState {
    if (entry.kind === 'tool_call') return appendLog(state, { key: keyOf(entry), name: entry.name, fact: 'call' });
    if (entry.kind !== 'tool_result') return state;
    const outcome = entry.payload.status;
    return outcome === 'ok' || outcome === 'error' ? appendLog(state, { key: keyOf(entry), name: entry.name, fact: outcome }) : state;
  },
  view: (state) => Object.fromEntries([...counted.of(state).byTool].map(([name, s]) => [name, { ...s }])),
};
