import { ATTEMPT_EVENT } from '../entryNames';
import type { Entry } from '../entry';
import { mergedFromOf } from '../fork';
import { wholeInputOf, type UsageFigures } from './usageFigures';

/**
 * Token use across the sessions of a tape, per agent and per day (issue 22): what every agent's
 * work cost, from the `provider/attempt` entries each session stores (a fork's inherited attempts
 * are its parent's rows, and a merged fork's copies in its parent are the fork's: each attempt
 * counts once, where it was first stored). A session's agent is the format it was
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
  /** Its agent (`agentOf`). */
  agent: string;
  /** Its stored `provider/attempt` events. */
  attempts: readonly Entry[];
}

/** The facts a session's agent is told from. */
export interface AgentFacts {
  sessionId: string;
  /** The session's first stored entry (its `session/start`), if any. */
  start: Entry | undefined;
  /** Whether it was ingested (src/tape/ingestedSession.ts). */
  ingested: boolean;
}

export function agentOf(s: AgentFacts): string {
  const state = s.start?.payload.state as { ingestedFrom?: unknown } | undefined;
  if (typeof state?.ingestedFrom === 'string' && state.ingestedFrom !== '') return state.ingestedFrom;
  if (s.ingested) {
    const colon = s.sessionId.indexOf(':');
    if (colon > 0) return s.sessionId.slice(0, colon);
  }
  return OWN_AGENT;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * What one stored `provider/attempt` reports (a figure it lacks, or that is not a positive number,
 * is 0), its input every input token of the request whichever way it was stored; null for any other entry.
 */
export function attemptUsage(entry: Entry): UsageFigures | null {
  if (entry.kind !== 'event' || entry.name !== ATTEMPT_EVENT) return null;
  const data = entry.payload.data as { usage?: unknown } | null | undefined;
  const usage = typeof data?.usage === 'object' && data.usage !== null ? (data.usage as Record<string, unknown>) : {};
  return {
    requests: 1,
    inputTokens: wholeInputOf(usage),
    outputTokens: count(usage.outputTokens),
    cachedTokens: count(usage.cachedTokens),
    cacheCreationTokens: count(usage.cacheCreationTokens),
  };
}

/**
 * The session that stores the original of a merged copy (src/tape/fork.ts planMerge copies a fork's
 * entries into its parent, attempts included); null for an entry stored here first. A copy counts
 * only when that session is no longer on the tape.
 */
export const copiedFrom = (entry: Entry): string | null => mergedFromOf(entry)?.sessionId ?? null;

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One row per agent and day with attempts, ordered by day, then agent; and the totals per agent. `sessions` are every session of the tape. */
export function usageStats(sessions: readonly SessionUsageSource[]): { rows: UsageRow[]; totals: UsageRow[] } {
  const rows = new Map<string, UsageRow & { ids: Set<string> }>();
  const totals = new Map<string, UsageRow & { ids: Set<string> }>();
  const add = (into: typeof rows, key: string, agent: string, day: string, sessionId: string, usage: UsageFigures): void => {
    const row = into.get(key) ?? { agent, day, sessions: 0, requests: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, ids: new Set<string>() };
    row.ids.add(sessionId);
    row.sessions = row.ids.size;
    row.requests++;
    row.inputTokens += usage.inputTokens;
    row.outputTokens += usage.outputTokens;
    row.cachedTokens += usage.cachedTokens;
    into.set(key, row);
  };
  const onTape = new Set(sessions.map((s) => s.sessionId));
  for (const { sessionId, agent, attempts } of sessions) {
    for (const a of attempts) {
      const usage = attemptUsage(a);
      const original = copiedFrom(a);
      if (usage === null || (original !== null && onTape.has(original))) continue;
      const day = dayOf(a.createdAt);
      add(rows, `${day}\u0000${agent}`, agent, day, sessionId, usage);
      add(totals, agent, agent, 'all', sessionId, usage);
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
