import { ATTEMPT_EVENT } from '../../tape/entryNames';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { eventEntry, sourceKey } from '../format';
import { ANTHROPIC_BASIS, OPENAI_BASIS, tapeUsage } from '../tapeUsage';
import type { ApiMessageInfo } from './apiHistory';
import type { TaskMapping } from './taskMapping';

/**
 * One `provider/attempt` per model request, with the figures the agent recorded for it: the chat's
 * `api_req_started` (the figures the extension shows and sums for the task), or, for a task with
 * only its API history, Cline's per-message `metrics`. tokensIn is the input as the agent counts
 * it: Cline's excludes the cache (the provider's input_tokens), Roo Code's and Kilo Code's include
 * it (their `totalInputTokens`); cache reads and writes are beside it.
 */

export interface RequestFigures {
  ts: number;
  tokensIn?: number;
  tokensOut?: number;
  cacheWrites?: number;
  cacheReads?: number;
  cost?: number;
  cancelReason?: string;
  /** The model the chat names for it (Cline's `modelInfo`). */
  model?: string;
  /** Several requests' figures in one: those removed from the chat, or a batch of subagents'. */
  aggregate?: 'deleted_api_reqs' | 'subagents';
}

/**
 * The requests' attempts. Each is matched to the API message that answers it (the first assistant
 * message at or after its start, before the next request) for its message and model; the model is
 * else the one the request's environment details or Cline's metadata name, else the one before.
 */
export function attemptEntries(
  m: TaskMapping,
  requests: readonly RequestFigures[],
  api: readonly ApiMessageInfo[],
  modelAt: (ts: number) => string | undefined,
): { entries: NewEntry[]; model?: string } {
  const entries: NewEntry[] = [];
  const starts = requests.filter((r) => r.aggregate === undefined).map((r) => r.ts);
  let model: string | undefined;
  for (const r of requests) {
    const next = starts.find((t) => t > r.ts) ?? Infinity;
    const within = (info: ApiMessageInfo): boolean => info.ts !== undefined && info.ts >= r.ts && info.ts < next;
    const answer = r.aggregate === undefined ? api.find((a) => a.role === 'assistant' && within(a)) : undefined;
    const asked = r.aggregate === undefined ? api.find((a) => a.role === 'user' && within(a)) : undefined;
    model = r.model ?? answer?.model ?? asked?.envModel ?? modelAt(r.ts) ?? model;
    const data: JsonObject = {
      ...(answer !== undefined ? { messageId: answer.messageId } : {}),
      model: model ?? 'unknown',
      usage: tapeUsage(
        { input: r.tokensIn ?? 0, output: r.tokensOut ?? 0, cacheRead: r.cacheReads, cacheWrite: r.cacheWrites },
        m.agent === 'cline' ? ANTHROPIC_BASIS : OPENAI_BASIS,
      ),
      ...(r.cost !== undefined ? { cost: r.cost } : {}),
      ...(r.cancelReason !== undefined ? { cancelReason: r.cancelReason } : {}),
      ...(r.aggregate !== undefined ? { aggregate: r.aggregate } : {}),
    };
    entries.push(eventEntry(ATTEMPT_EVENT, sourceKey(m.sessionId, ATTEMPT_EVENT, r.aggregate ?? 'request', r.ts), data, r.ts));
  }
  return { entries, ...(model !== undefined ? { model } : {}) };
}

/**
 * Attempts from Cline's per-message metrics, for a task without its chat: `cached` there is the
 * cache's reads and writes together, as Cline records it.
 */
export function metricsAttempts(m: TaskMapping, api: readonly ApiMessageInfo[], modelAt: (ts: number) => string | undefined): NewEntry[] {
  return api.flatMap((a) => {
    const tokens = a.metrics?.tokens;
    if (a.role !== 'assistant' || tokens === undefined) return [];
    const data: JsonObject = {
      messageId: a.messageId,
      model: a.model ?? (a.ts !== undefined ? modelAt(a.ts) : undefined) ?? 'unknown',
      usage: { inputTokens: tokens.prompt ?? 0, outputTokens: tokens.completion ?? 0, cachedTokens: tokens.cached ?? 0 },
      ...(a.metrics?.cost !== undefined ? { cost: a.metrics.cost } : {}),
    };
    return [eventEntry(ATTEMPT_EVENT, sourceKey(m.sessionId, ATTEMPT_EVENT, 'metrics', a.messageId), data, a.ts)];
  });
}
