import type { NewEntry } from '../tape/entry';
import { viewAssembledEntry, type ViewManifest } from '../tape/manifest';
import type { ToolDefinition } from '../tape/modelRequest';
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
  type TurnEndOutcome,
  type TurnOutcomeKind,
  type TurnRef,
} from '../tape/turnEntries';
import { checkpointEntry, checkpointsOffEntry, type CheckpointReason } from '../tape/workspaceCheckpoint';
import type { TurnCheckpoints } from './checkpoints/turnCheckpoints';
import type { ModelPort, ModelRequest, ToolCall } from './model/modelPort';
import type { RetryPolicy } from './model/retry';
import { sendRequest, type ModelResponse } from './model/sendRequest';
import { DEFAULT_REVISION_THROTTLE, RevisionThrottle, type RevisionThrottleSettings } from './revisionThrottle';
import { TapeWriter, type AppendTarget } from './tapeWriter';
import { toolboxExecutor, UNNAMED_TOOL, type ToolAnswer, type ToolExecutor } from './toolExecutor';
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

/** What every turn is driven with, the agent's own and a re-run's. */
interface TurnBase {
  tape: AppendTarget;
  sessionId: string;
  model: ModelPort;
  /** Builds a request from the tape; called once per request, after everything of the turn so far is appended. */
  assemble: (slot: RequestSlot) => AssembledRequest | Promise<AssembledRequest>;
  /** Runs before each request is assembled (auto-compaction): whatever it appends, the request sees. */
  beforeRequest?: (slot: RequestSlot) => Promise<CompactionNotice | undefined>;
  signal: AbortSignal;
  retry?: RetryPolicy;
  now?: () => number;
  throttle?: RevisionThrottleSettings;
  onEvent?: (event: TurnEvent) => void;
  /** Workspace checkpoints: before the turn's first tool that may change files, and at the end of such a turn. */
  checkpoints?: TurnCheckpoints;
}

export interface TurnDeps extends TurnBase {
  newTurnId: () => string;
  /** The greatest orderSeq among the session's messages (0 when it has none): the turn's messages follow it. */
  lastOrderSeq: () => number;
  tools: Toolbox;
  /** The turn's signal and each call's ref are added: cancelling the turn cancels the tool that runs. */
  toolContext: Omit<ToolContext, 'signal' | 'call'>;
  /** Requests per turn; a turn that still calls tools after the last one ends with `round_limit`. */
  maxRounds: number;
}

/** A turn driven by another than the agent as well (a re-run going on in a recorded turn): its own message ids and hooks. */
export interface DriverDeps extends TurnBase {
  /** The assistant message of each request: its id and its place among the session's messages. */
  messageOf: (slot: RequestSlot) => { messageId: string; orderSeq: number };
  /** Whether the session's view holds this tool set already (a fork's may come from its parent): then it is not recorded again. */
  toolSetRecorded?: (tools: readonly ToolDefinition[], hash: string) => boolean;
  /** Right after a request's `view/assembled` is appended (an append is visible at once). */
  onRequest?: (slot: RequestSlot, manifest: ViewManifest) => void;
  /** Once a request's answer has come, before it is recorded. */
  onResponse?: (slot: RequestSlot, response: ModelResponse) => void;
}

export interface TurnInput {
  text: string;
}

/** An answer's tool calls, recorded and not yet answered. */
export interface WaitingCalls {
  requestSeq: number;
  messageId: string;
  calls: ToolCall[];
}

/** How a driven turn ended: the agent's outcomes, or the executor's own. */
export interface DrivenTurn<Outcome extends TurnEndOutcome> extends Omit<TurnOutcome, 'outcome'> {
  outcome: Outcome;
}

/** The result of a call that was never run because the turn was cancelled first; its pair stays whole. */
const NOT_RUN: ToolAnswer = { result: { status: 'error', output: 'not run: the turn was cancelled' }, ran: false };

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
  const base = deps.lastOrderSeq();
  const driver = new TurnDriver(
    {
      ...deps,
      messageOf: ({ requestSeq }) => ({ messageId: `${turn.turnId}/assistant/${requestSeq}`, orderSeq: base + 1 + requestSeq }),
    },
    turn,
  );
  const first = await driver.send(1, [
    turnStartEntry(turn, deps.maxRounds),
    messageEntry(turn, { messageId: `${turn.turnId}/user`, role: 'user', orderSeq: base + 1, content: input.text, status: 'sent' }),
  ]);
  return 'calls' in first ? driver.goOn(first, deps.maxRounds, toolboxExecutor(deps.tools, deps.toolContext)) : first;
}

/**
 * How every turn runs, the agent's own and a re-run's: each request assembled, sent with retries
 * and streamed onto the tape (attempts, throttled pending revisions, the answer and its calls), the
 * calls answered by the executor, and the turn ended by the answer, a failure, a cancel, the
 * round limit or the executor. Requests are numbered within the turn; `send` may start at any.
 */
export class TurnDriver {
  private readonly writer: TapeWriter;
  private readonly emit: (event: TurnEvent) => void;
  private readonly now: () => number;
  // The turn's first checkpoint, once a tool that may change files is about to run.
  private startCheckpoint: string | null | undefined;
  // The tool set this turn recorded last; the store's provenance key keeps one entry per set and session.
  private toolsRecorded: string | null = null;
  private text = '';

  constructor(
    private readonly deps: DriverDeps,
    private readonly turn: TurnRef,
  ) {
    this.writer = new TapeWriter(deps.tape, deps.sessionId);
    this.emit = deps.onEvent ?? (() => undefined);
    this.now = deps.now ?? Date.now;
  }

  /**
   * Appends `leading`, then sends request `requestSeq` and records its answer: the turn's end, or
   * the calls it waits at. The request is assembled unless `assembled` is given (a re-run's rebuilt
   * one); a cancel before assembling sends nothing, a given request is sent and its stream sees it.
   */
  async send(requestSeq: number, leading: readonly NewEntry[] = [], assembled?: AssembledRequest): Promise<DrivenTurn<TurnOutcomeKind> | WaitingCalls> {
    const { deps, turn, writer } = this;
    const slot: RequestSlot = { turnId: turn.turnId, requestSeq };
    if (leading.length > 0) writer.write(...leading);
    await writer.flush();
    const ready = assembled ?? (await this.assemble(slot));
    if (ready === null) return this.end('cancelled', requestSeq - 1);
    const { request, manifest } = ready;
    if (manifest.hashes.toolsHash !== this.toolsRecorded) {
      // What is recorded must be what the port is given: the definitions of this very request.
      const tools = toolsEntry(request.tools);
      if (tools.payload.hash !== manifest.hashes.toolsHash)
        throw new Error(
          `request ${turn.turnId}/${requestSeq}: the tools sent hash to ${String(tools.payload.hash)}, its manifest says ${manifest.hashes.toolsHash}`,
        );
      if (deps.toolSetRecorded?.(request.tools, manifest.hashes.toolsHash) !== true) writer.write({ ...tools, meta: { turnId: turn.turnId } });
      this.toolsRecorded = manifest.hashes.toolsHash;
    }
    writer.write({ ...viewAssembledEntry(manifest), meta: { turnId: turn.turnId } });
    deps.onRequest?.(slot, manifest);

    const message = { ...deps.messageOf(slot), role: 'assistant' as const };
    const { response, wrotePending } = await this.stream(slot, request, message);
    deps.onResponse?.(slot, response);
    this.text = response.text;
    if (response.status !== 'ok') {
      // The final version supersedes the pending revisions; without any there is nothing to close.
      if (response.text !== '' || wrotePending) writer.write(messageEntry(turn, { ...message, content: response.text, status: 'error' }));
      const { error } = response;
      if (error === null) return this.end('cancelled', requestSeq);
      writer.write(providerErrorEntry(turn, requestSeq, error));
      this.emit({ type: 'error', turnId: turn.turnId, requestSeq, kind: 'provider', failureClass: error.failureClass, message: error.message });
      return this.end('provider_error', requestSeq, error);
    }
    // The answer and its calls as one transaction: a reader never sees a message missing its calls.
    writer.write(
      messageEntry(turn, { ...message, content: response.text, status: 'sent' }),
      ...response.toolCalls.map((call) =>
        toolCallEntry(turn, message.messageId, call.id, call.name || UNNAMED_TOOL, call.valid ? call.arguments : call.rawArguments),
      ),
    );
    if (response.toolCalls.length === 0) return this.end('answer', requestSeq);
    return { requestSeq, messageId: message.messageId, calls: response.toolCalls };
  }

  /** The request assembled, after the pre-request hook; null when the turn was cancelled first. */
  private async assemble(slot: RequestSlot): Promise<AssembledRequest | null> {
    const { deps } = this;
    if (deps.signal.aborted) return null;
    const compaction = await deps.beforeRequest?.(slot);
    if (compaction) this.emit({ type: 'compaction', turnId: slot.turnId, requestSeq: slot.requestSeq, ...compaction });
    if (deps.signal.aborted) return null;
    return deps.assemble(slot);
  }

  /** Answers `waiting` through `executor`, then sends the next requests and answers their calls until the turn ends; none after `lastRequestSeq`. */
  async goOn<Stop extends TurnEndOutcome>(
    waiting: WaitingCalls,
    lastRequestSeq: number,
    executor: ToolExecutor<Stop>,
  ): Promise<DrivenTurn<TurnOutcomeKind | Stop>> {
    for (let calls = waiting; ;) {
      const stop = await this.answer(calls, executor);
      if (stop !== null) return this.end(stop, calls.requestSeq);
      if (this.deps.signal.aborted) return this.end('cancelled', calls.requestSeq);
      if (calls.requestSeq >= lastRequestSeq) return this.end('round_limit', calls.requestSeq);
      const next = await this.send(calls.requestSeq + 1);
      if (!('calls' in next)) return next;
      calls = next;
    }
  }

  /** Answers each call through the executor, in order, each result written before the next call is asked for. */
  private async answer<Stop extends TurnEndOutcome>({ requestSeq, messageId, calls }: WaitingCalls, executor: ToolExecutor<Stop>): Promise<Stop | null> {
    const { deps, turn, writer } = this;
    for (const [index, call] of calls.entries()) {
      const name = call.name || UNNAMED_TOOL;
      this.emit({
        type: 'tool_call',
        turnId: turn.turnId,
        requestSeq,
        messageId,
        toolCallId: call.id,
        name,
        input: call.valid ? call.arguments : call.rawArguments,
        valid: call.valid,
      });
      if (this.startCheckpoint === undefined && call.valid && !deps.signal.aborted && mayChangeFiles(executor.effectOf(call.name))) {
        this.startCheckpoint = await this.checkpoint('turn_start');
      }
      const answer = deps.signal.aborted ? NOT_RUN : await executor.answer(call, { turnId: turn.turnId, requestSeq, index }, deps.signal);
      const result: ToolResult = answer.result;
      const entry = toolResultEntry(turn, messageId, call.id, name, result);
      writer.write(
        answer.meta === undefined ? entry : { ...entry, meta: { ...entry.meta, ...answer.meta } },
        ...(result.status === 'error' && answer.ran
          ? [toolErrorEntry(turn, messageId, call.id, name, call.valid ? 'tool' : 'invalid_input', result.output)]
          : []),
      );
      this.emit({
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
    return executor.stopAfter?.(requestSeq, calls.length) ?? null;
  }

  private async checkpoint(reason: CheckpointReason, diffFrom?: string): Promise<string | null> {
    const { turn, writer } = this;
    const taken = await this.deps.checkpoints?.take(turn.sessionId, reason, turn.turnId, diffFrom);
    if (taken === undefined || taken === null) return null;
    if (taken.kind === 'off') {
      writer.write(checkpointsOffEntry(turn.sessionId, taken.data, turn.turnId));
      this.emit({ type: 'checkpoints_off', turnId: turn.turnId, reason: taken.data.reason, message: taken.data.message });
      return null;
    }
    const { data } = taken;
    writer.write(checkpointEntry(turn.sessionId, data));
    this.emit({
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
  }

  private async end<O extends TurnEndOutcome>(outcome: O, rounds: number, error?: ModelResponse['error']): Promise<DrivenTurn<O>> {
    const { turn, writer } = this;
    // Also after a cancel or a failure: whatever the turn's tools changed is recorded.
    if (typeof this.startCheckpoint === 'string') await this.checkpoint('turn_end', this.startCheckpoint);
    writer.write(turnEndEntry(turn, outcome, rounds));
    await writer.flush();
    this.emit({ type: 'turn_end', turnId: turn.turnId, sessionId: turn.sessionId, outcome, rounds });
    return {
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      outcome,
      rounds,
      text: this.text,
      ...(error ? { error: { failureClass: error.failureClass, message: error.message } } : {}),
    };
  }

  /**
   * Streams one request with retries, writing each attempt and the throttled pending revisions of
   * the answer as they come. A provider failure is part of the response rather than thrown, so the
   * turn records it; anything else thrown (the host's event listener, say) is a bug and goes up.
   */
  private async stream(
    slot: RequestSlot,
    request: ModelRequest,
    message: { messageId: string; role: 'assistant'; orderSeq: number },
  ): Promise<{ response: ModelResponse; wrotePending: boolean }> {
    const { deps, turn, writer, now } = this;
    const throttle = new RevisionThrottle(deps.throttle ?? DEFAULT_REVISION_THROTTLE, now);
    let revisions = 0;
    const response = await sendRequest(deps.model, request, {
      signal: deps.signal,
      retry: deps.retry,
      now,
      onAttempt: (record) => writer.write(attemptEntry(turn, slot.requestSeq, record)),
      onText: (delta, text) => {
        this.emit({ type: 'text', turnId: turn.turnId, requestSeq: slot.requestSeq, messageId: message.messageId, delta });
        if (throttle.due(text.length)) writer.write(messageEntry(turn, { ...message, content: text, status: 'pending', revision: ++revisions }));
      },
    });
    return { response, wrotePending: revisions > 0 };
  }
}
