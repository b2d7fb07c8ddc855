import { VIEW_ASSEMBLED, ATTEMPT_EVENT, TURN_END, TURN_START } from '../tape/entryNames';
import type { Entry } from '../tape/entry';
import { entryIndex, type FoldRow } from '../tape/fold';
import type { RecordedFacts, TokenCounts, ToolCallFacts } from '../tape/evaluation/evaluationEntries';
import type { PrefixReplay } from './prefixReplay';

/**
 * What the tape recorded in answer to a request: the entries after its `view/assembled` up to the
 * next request (or the end of its turn) that carry its turn's id: the final version of the
 * assistant message (the last one not pending), that message's tool calls in order, and the
 * request's `provider/attempt` events (its `requestSeq`), whose last usage is the request's tokens
 * and whose durations and waits add up to its latency, as a re-run's latency is measured. Nothing
 * of another turn counts (a compaction before the next request writes its own).
 */

export interface RecordedResponse {
  facts: RecordedFacts;
  /** The answer's text ('' when none was recorded). */
  text: string;
}

const data = (e: Entry): Record<string, unknown> => {
  const d = (e.payload as { data?: unknown }).data;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
};
const turnOf = (e: Entry): unknown => (e.kind === 'event' ? data(e).turnId : (e.payload.turnId ?? e.meta.turnId));
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

function tokensOf(usage: unknown): TokenCounts | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as Record<string, unknown>;
  return { input: num(u.inputTokens), output: num(u.outputTokens), cached: num(u.cachedTokens) };
}

/** What may answer a request; the rest of a window (tool results, user messages, other events) is never read. */
const mayAnswer = (r: FoldRow): boolean =>
  r.kind === 'tool_call' ||
  (r.kind === 'message' && r.role === 'assistant') ||
  (r.kind === 'event' && (r.name === ATTEMPT_EVENT || r.name === TURN_END || r.name === TURN_START));

/**
 * The recorded responses of one session's requests, read through the session's prefix replay: its
 * fold rows say which entries of a window can be part of an answer, and an entry read for an answer
 * is kept for the rebuild of the next request, which sends it.
 */
export class RecordedResponses {
  private readonly requestPositions: number[];

  constructor(private readonly replay: PrefixReplay) {
    this.requestPositions = replay.rows.filter((r) => r.kind === 'event' && r.name === VIEW_ASSEMBLED).map((r) => r.entryId);
  }

  /** The response to request `entryId` (turn `turnId`, request `requestSeq` of it). */
  of(entryId: number, turnId: string, requestSeq: number): RecordedResponse {
    const next = this.requestPositions.find((p) => p > entryId) ?? Infinity;
    const { rows } = this.replay;
    const window: Entry[] = [];
    for (let i = entryIndex(rows, entryId + 1); i < rows.length && rows[i].entryId < next; i++)
      if (mayAnswer(rows[i])) window.push(this.replay.getEntry(rows[i].entryId));
    let message: Entry | undefined;
    const calls: Entry[] = [];
    const attempts: Record<string, unknown>[] = [];
    for (const e of window) {
      if (turnOf(e) !== turnId) continue;
      if (e.kind === 'event' && (e.name === TURN_END || e.name === TURN_START)) break;
      if (e.kind === 'message' && e.payload.role === 'assistant' && e.payload.status !== 'pending') message = e;
      else if (e.kind === 'tool_call') calls.push(e);
      else if (e.kind === 'event' && e.name === ATTEMPT_EVENT && data(e).requestSeq === requestSeq) attempts.push(data(e));
    }
    const toolCalls: ToolCallFacts[] =
      message === undefined
        ? []
        : calls.filter((c) => c.payload.messageId === message.payload.messageId).map((c) => ({ name: c.name, arguments: c.payload.input }));
    const answered = message !== undefined && message.payload.status === 'sent';
    const withUsage = attempts.filter((a) => a.usage !== undefined);
    return {
      facts: {
        messageEntryId: message?.entryId ?? null,
        finish: answered ? (toolCalls.length > 0 ? 'tool_calls' : 'text') : null,
        toolCalls,
        tokens: withUsage.length === 0 ? null : tokensOf(withUsage[withUsage.length - 1].usage),
        latencyMs: attempts.length === 0 ? null : attempts.reduce((sum, a) => sum + num(a.durationMs) + num(a.delayMs), 0),
      },
      text: message === undefined ? '' : String(message.payload.content ?? ''),
    };
  }
}
