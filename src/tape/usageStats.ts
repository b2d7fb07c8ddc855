import type { Entry } from './entry';
import { ATTEMPT_EVENT } from './projections/tokenUsage';

/**
 * Token use across the sessions of a tape, per agent and per day (issue 22): what every agent's
 * work cost, from the `provider/attempt` entries each session stores (a fork's inherited attempts
 * are its parent's rows, so each attempt counts once). A session's agent is the format it was
 * ingested from (`session/start` `state.ingestedFrom`), else the prefix of an ingested session's id
 * (`claude-code:…`, older tapes), else this agent's own, `agent-tape`.
 */

export const OWN_AGENT = 'agent-tape';

export interface UsageRow {
  agent: string;
  /** UTC date, `YYYY-MM-DD`, of the attempts counted. */
  day: string;
  sessions: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface SessionUsageSource {
  sessionId: string;
  /** The session's first stored entry (its `session/start`), if any. */
  start: Entry | undefined;
  /** Its stored `provider/attempt` events. */
  attempts: readonly Entry[];
  /** Whether it was ingested (src/tape/ingestedSession.ts). */
  ingested: boolean;
}

export function agentOf(s: Pick<SessionUsageSource, 'sessionId' | 'start' | 'ingested'>): string {
  const state = s.start?.payload.state as { ingestedFrom?: unknown } | undefined;
  if (typeof state?.ingestedFrom === 'string' && state.ingestedFrom !== '') return state.ingestedFrom;
  if (s.ingested) {
    const colon = s.sessionId.indexOf(':');
    if (colon > 0) return s.sessionId.slice(0, colon);
  }
  return OWN_AGENT;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One row per agent and day with attempts, ordered by day, then agent; and the totals per agent. */
export function usageStats(sessions: readonly SessionUsageSource[]): { rows: UsageRow[]; totals: UsageRow[] } {
  const rows = new Map<string, UsageRow & { ids: Set<string> }>();
  const totals = new Map<string, UsageRow & { ids: Set<string> }>();
  const add = (into: typeof rows, key: string, agent: string, day: string, sessionId: string, usage: Record<string, unknown>): void => {
    const row = into.get(key) ?? { agent, day, sessions: 0, requests: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, ids: new Set<string>() };
    row.ids.add(sessionId);
    row.sessions = row.ids.size;
    row.requests++;
    row.inputTokens += count(usage.inputTokens);
    row.outputTokens += count(usage.outputTokens);
    row.cachedTokens += count(usage.cachedTokens);
    into.set(key, row);
  };
  for (const s of sessions) {
    const agent = agentOf(s);
    for (const a of s.attempts) {
      if (a.kind !== 'event' || a.name !== ATTEMPT_EVENT) continue;
      const data = a.payload.data as { usage?: unknown } | null | undefined;
      const usage = typeof data?.usage === 'object' && data.usage !== null ? (data.usage as Record<string, unknown>) : {};
      const day = dayOf(a.createdAt);
      add(rows, `${day}\u0000${agent}`, agent, day, s.sessionId, usage);
      add(totals, agent, agent, 'all', s.sessionId, usage);
    }
  }
  const plain = (r: UsageRow & { ids: Set<string> }): UsageRow => {
    const { ids: _ids, ...row } = r;
    return row;
  };
  return {
    rows: [...rows.values()].map(plain).sort((a, b) => (a.day === b.day ? a.agent.localeCompare(b.agent) : a.day < b.day ? -1 : 1)),
    totals: [...totals.values()].map(plain).sort((a, b) => a.agent.localeCompare(b.agent)),
  };
}
