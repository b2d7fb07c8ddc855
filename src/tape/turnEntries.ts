import { ATTEMPT_EVENT, PROVIDER_ERROR, TOOL_ERROR, TURN_END, TURN_START } from './entryNames';
import type { JsonObject, MessageStatus, NewEntry } from './entry';
import type { Usage } from './modelRequest';
import { provenanceKeyOf } from './provenanceKey';

/**
 * The entries one turn writes. Every one carries its turn's id in `meta.turnId` (messages also in
 * `payload.turnId`, where the entry model has the field) and a provenance key, so a turn replayed
 * after a crash, or an append retried, writes each fact once. Key parts are URI-encoded like the
 * manifest's key, and start with the session id for the same reason: a merge copies a fork's
 * entries into its parent, where their keys must not meet the parent's.
 */

export type TurnOutcomeKind = 'answer' | 'round_limit' | 'provider_error' | 'cancelled';
/** How a turn's `turn/end` says it ended: the loop's outcomes, and `diverged`, a continued re-run stopped at a call the recording did not make. */
export type TurnEndOutcome = TurnOutcomeKind | 'diverged';

/** Identifies the turn an entry belongs to. */
export interface TurnRef {
  sessionId: string;
  turnId: string;
}

function eventEntry(turn: TurnRef, name: string, keyParts: (string | number)[], data: JsonObject): NewEntry {
  return {
    kind: 'event',
    name,
    provenanceKey: provenanceKeyOf(name, turn.sessionId, turn.turnId, ...keyParts),
    payload: { name, data: { turnId: turn.turnId, ...data } },
    meta: { turnId: turn.turnId },
  };
}

export const turnStartEntry = (turn: TurnRef, maxRounds: number): NewEntry => eventEntry(turn, TURN_START, [], { maxRounds });

export const turnEndEntry = (turn: TurnRef, outcome: TurnEndOutcome, rounds: number): NewEntry => eventEntry(turn, TURN_END, [], { outcome, rounds });

/** One physical attempt of a request, as the agent's retries record it (its `AttemptRecord`). */
export interface AttemptFacts {
  attempt: number;
  status: 'ok' | 'error';
  failureClass?: string;
  retryDecision: 'none' | 'retry' | 'give_up';
  delayMs?: number;
  durationMs: number;
  usage?: Usage;
  stopReason?: string;
}

/** `cachedTokens` is the name the tokenUsage projection sums. */
export function attemptEntry(turn: TurnRef, requestSeq: number, record: AttemptFacts): NewEntry {
  const { usage, ...rest } = record;
  const data: JsonObject = { requestSeq, ...rest };
  if (usage !== undefined) {
    data.usage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedTokens: usage.cachedInputTokens ?? 0, estimated: usage.estimated };
  }
  return eventEntry(turn, ATTEMPT_EVENT, [requestSeq, record.attempt], data);
}

export interface MessageVersion {
  messageId: string;
  role: 'user' | 'assistant';
  orderSeq: number;
  content: string;
  status: MessageStatus;
  /** Numbers the pending revisions of one message; the final (sent or error) version has none. */
  revision?: number;
}

/** A message version: pending revisions each have their own key, the final version one per status. */
export function messageEntry(turn: TurnRef, m: MessageVersion): NewEntry {
  const version = m.status === 'pending' ? `pending-${m.revision ?? 0}` : m.status;
  return {
    kind: 'message',
    name: `message/${m.role}`,
    provenanceKey: provenanceKeyOf('message', turn.sessionId, m.messageId, version),
    payload: { messageId: m.messageId, role: m.role, status: m.status, orderSeq: m.orderSeq, content: m.content, turnId: turn.turnId },
    meta: { turnId: turn.turnId },
  };
}

export function toolCallEntry(turn: TurnRef, messageId: string, toolCallId: string, name: string, input: unknown): NewEntry {
  return {
    kind: 'tool_call',
    name,
    provenanceKey: provenanceKeyOf('tool_call', turn.sessionId, messageId, toolCallId),
    payload: { messageId, toolCallId, name, input },
    meta: { turnId: turn.turnId },
  };
}

/** A tool's result as its entry records it (the agent's `ToolResult`). */
export interface ToolResultFacts {
  readonly status: 'ok' | 'error';
  readonly output: string;
  readonly truncated?: boolean;
}

export function toolResultEntry(turn: TurnRef, messageId: string, toolCallId: string, name: string, result: ToolResultFacts): NewEntry {
  return {
    kind: 'tool_result',
    name,
    provenanceKey: provenanceKeyOf('tool_result', turn.sessionId, messageId, toolCallId),
    payload: { messageId, toolCallId, status: result.status, output: result.output, truncated: result.truncated === true },
    meta: { turnId: turn.turnId },
  };
}

/** Failure messages on `error/tool` entries are a summary; the whole output is on the tool result. */
const TOOL_ERROR_MESSAGE_CHARS = 500;

/**
 * A tool call that failed: the model sent a call that is not valid (`invalid_input`), or the tool
 * refused or failed (`tool`). Its `tool_result` carries the whole output the model sees; this entry
 * makes failures findable by kind, as provider failures are.
 */
export function toolErrorEntry(turn: TurnRef, messageId: string, toolCallId: string, name: string, kind: 'tool' | 'invalid_input', output: string): NewEntry {
  const message = output.length > TOOL_ERROR_MESSAGE_CHARS ? `${output.slice(0, TOOL_ERROR_MESSAGE_CHARS)}…` : output;
  return {
    kind: 'error',
    name: TOOL_ERROR,
    provenanceKey: provenanceKeyOf(TOOL_ERROR, turn.sessionId, messageId, toolCallId),
    payload: { kind, message, details: { turnId: turn.turnId, messageId, toolCallId, toolName: name } },
    meta: { turnId: turn.turnId },
  };
}

/** A provider failure as its entry records it (the agent's `ProviderError`). */
export interface ProviderFailure {
  readonly message: string;
  readonly failureClass: string;
  readonly transient: boolean;
  readonly status?: number;
}

/** The provider failure that ended a request after its retries; one per turn, since it ends the turn. */
export function providerErrorEntry(turn: TurnRef, requestSeq: number, error: ProviderFailure): NewEntry {
  const details: JsonObject = { turnId: turn.turnId, requestSeq, failureClass: error.failureClass, transient: error.transient };
  if (error.status !== undefined) details.status = error.status;
  return {
    kind: 'error',
    name: PROVIDER_ERROR,
    provenanceKey: provenanceKeyOf(PROVIDER_ERROR, turn.sessionId, turn.turnId),
    payload: { kind: 'provider', message: error.message, details },
    meta: { turnId: turn.turnId },
  };
}
