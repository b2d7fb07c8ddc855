import { viewAssembledEntry, type ViewManifest } from '../tape/manifest';
import { toolsEntry } from '../tape/toolsEntry';
import {
  attemptEntry,
  messageEntry,
  providerErrorEntry,
  toolCallEntry,
  toolErrorEntry,
  toolResultEntry,
  turnEndEntry,
  turnStartEntry,
  type TurnOutcomeKind,
  type TurnRef,
} from '../tape/turnEntries';
import { checkpointEntry, checkpointsOffEntry, type CheckpointReason } from '../tape/workspaceCheckpoint';
import type { TurnCheckpoints } from './checkpoints/turnCheckpoints';
import type { ModelPort, ModelRequest, StopReason, ToolCall } from './model/modelPort';
import { ProviderError } from './model/providerError';
import { streamWithRetry, type AttemptRecord, type RetryPolicy } from './model/retry';
import { DEFAULT_REVISION_THROTTLE, RevisionThrottle, type RevisionThrottleSettings } from './revisionThrottle';
import { TapeWriter, type AppendTarget } from './tapeWriter';
import type { ToolContext, Toolbox, ToolResult } from './tools/tool';
import { mayChangeFiles } from './tools/toolEffect';
import type { CompactionNotice, TurnEvent, TurnOutcome } from './turnEvent';

/** Which request of which turn: what the assembler and the pre-request hook are asked about. */
export interface RequestSlot {
  turnId: string;
  /** From 1 within the turn; a retried request keeps its number (and so its manifest). */
  requestSeq: number;
}

export interface AssembledRequest {
  request: ModelRequest;
  manifest: ViewManifest;
}

export interface TurnDeps {
  tape: AppendTarget;
  sessionId: string;
  newTurnId: () => string;
  /** The greatest orderSeq among the session's messages (0 when it has none): the turn's messages follow it. */
  lastOrderSeq: () => number;
  model: ModelPort;
  tools: Toolbox;
  /** The turn's signal and each call's ref are added: cancelling the turn cancels the tool that runs. */
  toolContext: Omit<ToolContext, 'signal' | 'call'>;
  /** Builds a request from the tape; called once per request, after everything of the turn so far is appended. */
  assemble: (slot: RequestSlot) => AssembledRequest | Promise<AssembledRequest>;
  /** Runs before each request is assembled (auto-compaction): whatever it appends, the request sees. */
  beforeRequest?: (slot: RequestSlot) => Promise<CompactionNotice | undefined>;
  /** Requests per turn; a turn that still calls tools after the last one ends with `round_limit`. */
  maxRounds: number;
  signal: AbortSignal;
  retry?: RetryPolicy;
  now?: () => number;
  throttle?: RevisionThrottleSettings;
  onEvent?: (event: TurnEvent) => void;
  /** Workspace checkpoints: before the turn's first tool that may change files, and at the end of such a turn. */
  checkpoints?: TurnCheckpoints;
}

export interface TurnInput {
  text: string;
}

/** The result of a call that was never run because the turn was cancelled first; its pair stays whole. */
const NOT_RUN: ToolResult = { status: 'error', output: 'not run: the turn was cancelled' };
// The entry model needs a tool name; a model can send a call without one (an invalid call).
export const UNNAMED_TOOL = 'unnamed_tool';

type Streamed =
  | { kind: 'complete'; text: string; calls: ToolCall[] }
  | { kind: 'cancelled'; text: string; wrotePending: boolean }
  | { kind: 'failed'; text: string; wrotePending: boolean; error: ProviderError };

/**
 * One turn (SPEC 2.10): the user's message, then requests until the model answers without calling a
 * tool, the turn is cancelled, the provider fails or the round limit is reached. Everything lands on
 * the tape with the turn's id: `turn/start`, the messages, the `system/tools` of a tool set the
 * session has not recorded yet, one `view/assembled` per request, one
 * `provider/attempt` per physical attempt, tool calls and results, any `error/provider`, and
 * `turn/end` with the outcome. Tool failures are `tool_result`s with status `error`, which the
 * model reads and the turn goes on from. Tool calls of a cancelled or failed stream are not run
 * and not recorded: that message ends with status `error`. A failing tape append, assembler or
 * hook rejects the returned promise and leaves the turn without `turn/end`, as a crash would.
 */
export async function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnOutcome> {
  const turn: TurnRef = { sessionId: deps.sessionId, turnId: deps.newTurnId() };
  const writer = new TapeWriter(deps.tape, deps.sessionId);
  const emit = deps.onEvent ?? (() => undefined);
  const now = deps.now ?? Date.now;
  const base = deps.lastOrderSeq();
  // The turn's first checkpoint, once a tool that may change files is about to run.
  let startCheckpoint: string | null | undefined;
  const checkpoint = async (reason: CheckpointReason, diffFrom?: string): Promise<string | null> => {
    const taken = await deps.checkpoints?.take(turn.sessionId, reason, turn.turnId, diffFrom);
    if (taken === undefined || taken === null) return null;
    if (taken.kind === 'off') {
      writer.write(checkpointsOffEntry(turn.sessionId, taken.data, turn.turnId));
      emit({ type: 'checkpoints_off', turnId: turn.turnId, reason: taken.data.reason, message: taken.data.message });
      return null;
    }
    const { data } = taken;
    writer.write(checkpointEntry(turn.sessionId, data));
    emit({
      type: 'checkpoint',
      turnId: turn.turnId,
      reason,
      checkpointId: data.checkpointId,
      previousId: data.previousId,
      files: data.files.length + data.filesOmitted,
      added: data.files.reduce((n, f) => n + (f.added ?? 0), 0),
      removed: data.files.reduce((n, f) => n + (f.removed ?? 0), 0),
    });
    return data.checkpointId;
  };

  const end = async (outcome: TurnOutcomeKind, rounds: number, text: string, error?: ProviderError): Promise<TurnOutcome> => {
    // Also after a cancel or a failure: whatever the turn's tools changed is recorded.
    if (typeof startCheckpoint === 'string') await checkpoint('turn_end', startCheckpoint);
    writer.write(turnEndEntry(turn, outcome, rounds));
    await writer.flush();
    emit({ type: 'turn_end', turnId: turn.turnId, sessionId: turn.sessionId, outcome, rounds });
    return {
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      outcome,
      rounds,
      text,
      ...(error ? { error: { failureClass: error.failureClass, message: error.message } } : {}),
    };
  };

  writer.write(
    turnStartEntry(turn, deps.maxRounds),
    messageEntry(turn, { messageId: `${turn.turnId}/user`, role: 'user', orderSeq: base + 1, content: input.text, status: 'sent' }),
  );
  let text = '';
  // The tool set this turn recorded last; the store's provenance key keeps one entry per set and session.
  let toolsRecorded: string | null = null;
  for (let requestSeq = 1; requestSeq <= deps.maxRounds; requestSeq++) {
    const slot: RequestSlot = { turnId: turn.turnId, requestSeq };
    await writer.flush();
    if (deps.signal.aborted) return end('cancelled', requestSeq - 1, text);
    const compaction = await deps.beforeRequest?.(slot);
    if (compaction) emit({ type: 'compaction', turnId: turn.turnId, requestSeq, ...compaction });
    if (deps.signal.aborted) return end('cancelled', requestSeq - 1, text);
    const { request, manifest } = await deps.assemble(slot);
    if (manifest.hashes.toolsHash !== toolsRecorded) {
      // What is recorded must be what the port is given: the definitions of this very request.
      const tools = toolsEntry(request.tools);
      if (tools.payload.hash !== manifest.hashes.toolsHash)
        throw new Error(
          `request ${turn.turnId}/${requestSeq}: the tools sent hash to ${String(tools.payload.hash)}, its manifest says ${manifest.hashes.toolsHash}`,
        );
      writer.write({ ...tools, meta: { turnId: turn.turnId } });
      toolsRecorded = manifest.hashes.toolsHash;
    }
    writer.write({ ...viewAssembledEntry(manifest), meta: { turnId: turn.turnId } });

    const messageId = `${turn.turnId}/assistant/${requestSeq}`;
    const message = { messageId, role: 'assistant' as const, orderSeq: base + 1 + requestSeq };
    const streamed = await streamAnswer(deps, writer, turn, slot, request, message, now);
    text = streamed.text;
    if (streamed.kind !== 'complete') {
      // The final version supersedes the pending revisions; without any there is nothing to close.
      if (streamed.text !== '' || streamed.wrotePending) writer.write(messageEntry(turn, { ...message, content: streamed.text, status: 'error' }));
      if (streamed.kind === 'cancelled') return end('cancelled', requestSeq, text);
      const { error } = streamed;
      writer.write(providerErrorEntry(turn, requestSeq, error));
      emit({ type: 'error', turnId: turn.turnId, requestSeq, kind: 'provider', failureClass: error.failureClass, message: error.message });
      return end('provider_error', requestSeq, text, error);
    }

    const calls = streamed.calls.map((call) => ({ call, name: call.name || UNNAMED_TOOL }));
    // The answer and its calls as one transaction: a reader never sees a message missing its calls.
    writer.write(
      messageEntry(turn, { ...message, content: streamed.text, status: 'sent' }),
      ...calls.map(({ call, name }) => toolCallEntry(turn, messageId, call.id, name, call.valid ? call.arguments : call.rawArguments)),
    );
    if (calls.length === 0) return end('answer', requestSeq, text);

    const toolContext: ToolContext = { ...deps.toolContext, signal: deps.signal };
    for (const { call, name } of calls) {
      emit({
        type: 'tool_call',
        turnId: turn.turnId,
        requestSeq,
        messageId,
        toolCallId: call.id,
        name,
        input: call.valid ? call.arguments : call.rawArguments,
        valid: call.valid,
      });
      if (startCheckpoint === undefined && call.valid && !deps.signal.aborted && mayChangeFiles(deps.tools.effectOf(call.name))) {
        startCheckpoint = await checkpoint('turn_start');
      }
      const result: ToolResult = deps.signal.aborted
        ? NOT_RUN
        : call.valid
          ? await deps.tools.invoke(call.name, call.arguments, { ...toolContext, call: { turnId: turn.turnId, requestSeq, toolCallId: call.id } })
          : { status: 'error', output: `invalid call of ${name}: ${call.problem}; nothing was run` };
      const failed = result.status === 'error' && result !== NOT_RUN;
      writer.write(
        toolResultEntry(turn, messageId, call.id, name, result),
        ...(failed ? [toolErrorEntry(turn, messageId, call.id, name, call.valid ? 'tool' : 'invalid_input', result.output)] : []),
      );
      emit({
        type: 'tool_result',
        turnId: turn.turnId,
        requestSeq,
        messageId,
        toolCallId: call.id,
        name,
        status: result.status,
        output: result.output,
        truncated: result.truncated === true,
      });
    }
    if (deps.signal.aborted) return end('cancelled', requestSeq, text);
  }
  return end('round_limit', deps.maxRounds, text);
}

/**
 * Streams one request with retries, writing each attempt and the throttled pending revisions of
 * the answer as they come. A provider failure is returned rather than thrown, so the loop records
 * it; anything else thrown (the host's event listener, say) is a bug and goes up.
 */
async function streamAnswer(
  deps: TurnDeps,
  writer: TapeWriter,
  turn: TurnRef,
  slot: RequestSlot,
  request: ModelRequest,
  message: { messageId: string; role: 'assistant'; orderSeq: number },
  now: () => number,
): Promise<Streamed> {
  const emit = deps.onEvent ?? (() => undefined);
  const throttle = new RevisionThrottle(deps.throttle ?? DEFAULT_REVISION_THROTTLE, now);
  let text = '';
  let revisions = 0;
  let stopReason: StopReason | undefined;
  const calls: ToolCall[] = [];
  const onAttempt = (record: AttemptRecord) => writer.write(attemptEntry(turn, slot.requestSeq, record));
  try {
    for await (const event of streamWithRetry(deps.model, request, deps.signal, { policy: deps.retry, onAttempt, now })) {
      switch (event.type) {
        case 'text':
          text += event.delta;
          emit({ type: 'text', turnId: turn.turnId, requestSeq: slot.requestSeq, messageId: message.messageId, delta: event.delta });
          if (throttle.due(text.length)) writer.write(messageEntry(turn, { ...message, content: text, status: 'pending', revision: ++revisions }));
          break;
        case 'tool_call':
          calls.push(event.call);
          break;
        case 'stop':
          stopReason = event.reason;
          break;
        case 'usage':
          break;
      }
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (deps.signal.aborted) return { kind: 'cancelled', text, wrotePending: revisions > 0 };
    return { kind: 'failed', text, wrotePending: revisions > 0, error };
  }
  if (stopReason === 'cancelled' || deps.signal.aborted) return { kind: 'cancelled', text, wrotePending: revisions > 0 };
  return { kind: 'complete', text, calls };
}
