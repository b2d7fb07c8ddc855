import { VIEW_ASSEMBLED, RERUN_REQUEST, SYSTEM_TOOLS, TURN_END } from '../tape/entryNames';
import { DEFAULT_MAX_ROUNDS } from '../agent/agentSession';
import { UNNAMED_TOOL } from '../agent/loop';
import type { ModelPort } from '../agent/model/modelPort';
import type { RetryPolicy } from '../agent/model/retry';
import { sendRequest, type ModelResponse } from '../agent/model/sendRequest';
import type { OpenTape } from '../agent/session/openTape';
import type { ToolContext, Toolbox, ToolResult } from '../agent/tools/tool';
import type { Entry, NewEntry } from '../tape/entry';
import { ForkRefusedError, forkStartOf, FORK_START_ENTRY_ID } from '../tape/fork';
import { isInterruptedResultKey } from '../tape/interruptedKey';
import { manifestOfEntry, sealManifest, viewAssembledEntry, type ViewManifest } from '../tape/manifest';
import type { ModelRequest } from '../tape/modelRequest';
import { replayedResultEntry, rerunMessageId, rerunRequestEntry, rerunOfSession, sameToolCall, type RerunRequestData } from '../tape/evaluation/rerunEntries';
import { toolsEntry } from '../tape/toolsEntry';
import { pairKey } from '../tape/toolPairs';
import {
  attemptEntry,
  messageEntry,
  providerErrorEntry,
  toolCallEntry,
  toolErrorEntry,
  toolResultEntry,
  turnEndEntry,
  type TurnEndOutcome,
  type TurnRef,
} from '../tape/turnEntries';
import { rebuildRequest, type RebuildOptions, type RebuiltRequest } from './rebuildRequest';
import { assembleVaried } from './variedRequest';
import type { Variation } from './variation';

/**
 * Re-running one recorded request (issue 18): request k of session S rebuilt as verification
 * rebuilds it, optionally varied, sent through any model port, and recorded in a fork of S made
 * just before k's `view/assembled` (so the fork's view is exactly the prefix k was built from).
 * The fork holds the `rerun/request` event, the new `view/assembled`, the attempts and the answer
 * with its tool calls, not run. S itself is never written to.
 *
 * Continuing goes on in the fork, in k's turn: each call identical (name and canonical arguments)
 * to the one recorded at the same step of S (the same request of the turn, the same place among
 * its calls) gets S's result, marked `replayedFrom`; the first that differs (or a step that leaves
 * out a call S made) ends the run as `diverged`, unless live tools were given: then that call and
 * every later one run for real, with the host's permissions. Later requests are assembled from
 * the fork's view under the same variation.
 */

export interface LiveTools {
  tools: Toolbox;
  /** The workspace and permissions calls run with; the fork's tape port, the signal and the call's ref are added. */
  context: Omit<ToolContext, 'signal' | 'call' | 'tape'>;
}

export interface ContinueOptions {
  /** Run calls for real from the first that differs from the recording on; without, that call ends the run as `diverged`. */
  live?: LiveTools;
  /** Requests sent in the fork, the re-run one included (the turn's usual limit by default). */
  maxRounds?: number;
}

export interface RerunOptions {
  signal: AbortSignal;
  /** The fork's id (generated when omitted). */
  forkId?: string;
  /** Go on in the fork after the re-run answer; without, the fork stops at its tool calls. */
  continue?: ContinueOptions;
  retry?: RetryPolicy;
  now?: () => number;
  rebuild?: RebuildOptions;
}

/** `recorded`: the answer asked for tools and the run was not continued, so the fork waits at those calls. */
export type RerunOutcome = 'recorded' | TurnEndOutcome;

export interface RerunCall {
  toolCallId: string;
  name: string;
  input: unknown;
  /** What became of it: the source's result, run for real, not run (the run stopped), or still waiting (not continued). */
  result: 'replayed' | 'run' | 'not_run' | 'waiting';
}

export interface RerunStep {
  requestSeq: number;
  /** The step's `view/assembled` in the fork (a position of its view). */
  viewEntryId: number;
  manifest: ViewManifest;
  response: ModelResponse;
  calls: RerunCall[];
}

export interface Divergence {
  requestSeq: number;
  /** Among the step's calls, from 0. */
  index: number;
  /** The fork's call; null when the fork's step left out a call the recording made. */
  call: { name: string; input: unknown } | null;
  /** The source's call at that step; null when it made none there. */
  recorded: { name: string; input: unknown; entryId: number } | null;
}

export interface RerunResult {
  forkSessionId: string;
  forkId: string;
  sourceSessionId: string;
  sourceEntryId: number;
  /** The re-run request as rebuilt from the source (its hashes compared with the recording). */
  rebuilt: RebuiltRequest;
  /** The requests this call sent, in order; the first of a re-run is the re-run request. */
  steps: RerunStep[];
  outcome: RerunOutcome;
  divergence: Divergence | null;
}

/** A tool call as the fork stores it: the input an object, or the raw text of arguments that were not one. */
interface StoredCall {
  toolCallId: string;
  name: string;
  input: unknown;
}

interface RecordedCall extends StoredCall {
  entryId: number;
  result: { entryId: number; status: 'ok' | 'error'; output: string; truncated: boolean } | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rebuild of the request to send to `model`: the caller's variation, naming `model` in the
 * manifest when the recording named another (the variation may name one itself).
 */
function rebuildFor(tape: OpenTape, model: ModelPort, sessionId: string, entryId: number, variation: Variation, options?: RebuildOptions): RebuiltRequest {
  const rebuilt = rebuildRequest(tape, sessionId, entryId, variation, options);
  const { vendor, id } = model.info;
  if (variation.model !== undefined || (rebuilt.manifest.model.vendor === vendor && rebuilt.manifest.model.id === id)) return rebuilt;
  return rebuildRequest(tape, sessionId, entryId, { ...variation, model: { vendor, id } }, options);
}

/**
 * Re-runs request `entryId` of `sessionId`. Throws a `RebuildError` (nothing sent, nothing
 * written) for an unknown session, an entry that is not a request or a bad variation, and a
 * `ForkRefusedError` when the fork cannot be made; a model that fails is a result (`provider_error`,
 * the failure recorded in the fork), never thrown.
 */
export async function rerunRequest(
  tape: OpenTape,
  model: ModelPort,
  input: { sessionId: string; entryId: number; variation?: Variation },
  options: RerunOptions,
): Promise<RerunResult> {
  const rebuilt = rebuildFor(tape, model, input.sessionId, input.entryId, input.variation ?? {}, options.rebuild);
  const fork = await tape.session(input.sessionId).fork({ at: input.entryId - 1, forkId: options.forkId });
  const now = options.now ?? Date.now;
  const { manifestHash: _recordedHash, ...hashes } = rebuilt.manifest.hashes;
  const manifest = sealManifest({ ...rebuilt.manifest, sessionId: fork.forkSessionId, assembledAt: now(), hashes });
  const data: RerunRequestData = {
    sourceSessionId: input.sessionId,
    sourceEntryId: input.entryId,
    sourceManifestHash: rebuilt.recorded.hashes.manifestHash,
    turnId: rebuilt.recorded.turnId,
    requestSeq: rebuilt.recorded.requestSeq,
    // As JSON holds it: a parsed variation may carry fields set to undefined.
    variation: JSON.parse(JSON.stringify(rebuilt.variation)) as Record<string, unknown>,
    manifestHash: manifest.hashes.manifestHash,
    promptHashMatches: rebuilt.promptHashMatches,
    toolsHashMatches: rebuilt.toolsHashMatches,
    notes: rebuilt.notes,
  };
  const run = new ForkRun(tape, model, fork.forkSessionId, fork.forkId, data, rebuilt, 0, options);
  const first = await run.request(data.requestSeq, rebuilt.request, manifest, [rerunRequestEntry(fork.forkSessionId, data)]);
  if (first !== null) return run.result(first);
  return options.continue === undefined ? run.result('recorded') : run.continue(options.continue);
}

/**
 * Continues a re-run fork that stopped at its answer's tool calls (a re-run made without
 * `continue`): the same as continuing at once, from the calls still waiting. Refused for a session
 * that is not a re-run fork or whose turn has ended.
 */
export async function continueRerun(
  tape: OpenTape,
  model: ModelPort,
  forkSessionId: string,
  options: Omit<RerunOptions, 'forkId' | 'continue'> & { continue: ContinueOptions },
): Promise<RerunResult> {
  const { store } = tape;
  const own = store.entries(forkSessionId);
  const fork = forkStartOf(own[FORK_START_ENTRY_ID - 1]);
  const data = rerunOfSession((id) => own[id - 1]);
  if (fork === null || data === null)
    throw new ForkRefusedError(`${JSON.stringify(forkSessionId)} is not a re-run fork (it has no valid ${RERUN_REQUEST} event)`);
  if (own.some((e) => e.kind === 'event' && e.name === TURN_END && (e.payload.data as { turnId?: unknown }).turnId === data.turnId))
    throw new ForkRefusedError(`the re-run in ${JSON.stringify(forkSessionId)} has ended; re-run the request again to go on differently`);
  const requests = own.filter((e) => e.kind === 'event' && e.name === VIEW_ASSEMBLED);
  const last = requests.at(-1);
  if (last === undefined) throw new ForkRefusedError(`${JSON.stringify(forkSessionId)} holds no request`);
  const seq = manifestOfEntry(last).requestSeq;
  const messageId = rerunMessageId(data.turnId, fork.forkId, seq);
  if (!own.some((e) => e.kind === 'message' && e.payload.messageId === messageId && e.payload.status === 'sent'))
    throw new ForkRefusedError(`request ${data.turnId}/${seq} of ${JSON.stringify(forkSessionId)} has no recorded answer to go on from`);
  const answered = new Set(
    own
      .filter((e) => e.kind === 'tool_result' && !isInterruptedResultKey(e.provenanceKey))
      .map((e) => pairKey(String(e.payload.messageId), String(e.payload.toolCallId))),
  );
  const waiting = own
    .filter((e) => e.kind === 'tool_call' && e.payload.messageId === messageId && !answered.has(pairKey(messageId, String(e.payload.toolCallId))))
    .map((e): StoredCall => ({ toolCallId: String(e.payload.toolCallId), name: e.name, input: e.payload.input }));
  const rebuilt = rebuildRequest(tape, data.sourceSessionId, data.sourceEntryId, data.variation as Variation, options.rebuild);
  const run = new ForkRun(tape, model, forkSessionId, fork.forkId, data, rebuilt, requests.length, options);
  run.resumeAt(seq, messageId, waiting);
  return run.continue(options.continue);
}

/** One re-run fork being written: its turn, the requests sent and the calls of the last one. */
class ForkRun {
  private readonly turn: TurnRef;
  private readonly now: () => number;
  private readonly steps: RerunStep[] = [];
  private divergence: Divergence | null = null;
  private recorded: Map<number, RecordedCall[]> | undefined;
  /** The last request's number, its answer's message and its calls not yet answered. */
  private seq = 0;
  private messageId = '';
  private waiting: StoredCall[] = [];
  private step: RerunStep | undefined;

  constructor(
    private readonly tape: OpenTape,
    private readonly model: ModelPort,
    private readonly forkSessionId: string,
    private readonly forkId: string,
    private readonly data: RerunRequestData,
    private readonly rebuilt: RebuiltRequest,
    private requestsSent: number,
    private readonly options: Omit<RerunOptions, 'continue'>,
  ) {
    this.turn = { sessionId: forkSessionId, turnId: data.turnId };
    this.now = options.now ?? Date.now;
  }

  resumeAt(seq: number, messageId: string, waiting: StoredCall[]): void {
    this.seq = seq;
    this.messageId = messageId;
    this.waiting = waiting;
  }

  result(outcome: RerunOutcome): RerunResult {
    return {
      forkSessionId: this.forkSessionId,
      forkId: this.forkId,
      sourceSessionId: this.data.sourceSessionId,
      sourceEntryId: this.data.sourceEntryId,
      rebuilt: this.rebuilt,
      steps: this.steps,
      outcome,
      divergence: this.divergence,
    };
  }

  private append(entries: readonly NewEntry[]): Promise<unknown> {
    return entries.length === 0 ? Promise.resolve() : this.tape.store.appendMany(this.forkSessionId, entries);
  }

  private hasToolSet(hash: string): boolean {
    return this.tape.reader.entries(this.forkSessionId, { kind: 'system', name: SYSTEM_TOOLS }).some((e) => e.payload.hash === hash);
  }

  /** The orderSeq after the fork view's last message: the source's request k had the same. */
  private nextOrderSeq(): number {
    return (this.tape.folds.view(this.forkSessionId, { includePending: true }).messages.at(-1)?.orderSeq ?? 0) + 1;
  }

  /**
   * Writes the request (after `leading`), sends it and records the answer. Returns how the turn
   * ended when this request ended it (an answer without calls, a failure, a cancel), else null.
   */
  async request(seq: number, request: ModelRequest, manifest: ViewManifest, leading: NewEntry[]): Promise<TurnEndOutcome | null> {
    const { turn } = this;
    const before: NewEntry[] = [...leading];
    // What is recorded is what is sent: the request's own tool set, when the fork's view lacks it.
    if (request.tools.length > 0 && !this.hasToolSet(manifest.hashes.toolsHash)) before.push({ ...toolsEntry(request.tools), meta: { turnId: turn.turnId } });
    before.push({ ...viewAssembledEntry(manifest), meta: { turnId: turn.turnId } });
    await this.append(before);
    const viewEntryId = this.tape.reader.headEntryId(this.forkSessionId);
    this.requestsSent++;

    const response = await sendRequest(this.model, request, { signal: this.options.signal, retry: this.options.retry, now: this.now });
    const messageId = rerunMessageId(turn.turnId, this.forkId, seq);
    const message = { messageId, role: 'assistant' as const, orderSeq: this.nextOrderSeq() };
    const after: NewEntry[] = response.attempts.map((a) => attemptEntry(turn, seq, a));
    let ended: TurnEndOutcome | null = null;
    const calls: StoredCall[] = response.toolCalls.map((c) => ({
      toolCallId: c.id,
      name: c.name || UNNAMED_TOOL,
      input: c.valid ? c.arguments : c.rawArguments,
    }));
    if (response.status === 'ok') {
      after.push(
        messageEntry(turn, { ...message, content: response.text, status: 'sent' }),
        ...calls.map((c) => toolCallEntry(turn, messageId, c.toolCallId, c.name, c.input)),
      );
      if (calls.length === 0) ended = 'answer';
    } else {
      if (response.text !== '') after.push(messageEntry(turn, { ...message, content: response.text, status: 'error' }));
      if (response.status === 'failed' && response.error !== null) {
        after.push(providerErrorEntry(turn, seq, response.error));
        ended = 'provider_error';
      } else ended = 'cancelled';
    }
    if (ended !== null) after.push(turnEndEntry(turn, ended, seq));
    await this.append(after);
    this.step = { requestSeq: seq, viewEntryId, manifest, response, calls: calls.map((c) => ({ ...c, result: 'waiting' })) };
    this.steps.push(this.step);
    this.resumeAt(seq, messageId, calls);
    return ended;
  }

  /** Answers the waiting calls (from the recording, or live) and sends the next request, until the turn ends. */
  async continue(opts: ContinueOptions): Promise<RerunResult> {
    const { signal } = this.options;
    const maxRounds = opts.maxRounds ?? DEFAULT_MAX_ROUNDS;
    // Once the fork has done what the recording did not, the recording's results say nothing of it.
    let live = false;
    for (;;) {
      const recorded = this.recordedCalls().get(this.seq) ?? [];
      const results: NewEntry[] = [];
      let stopped = false;
      const settle = (i: number, result: RerunCall['result']) => {
        const shown = this.step?.calls.find((c) => c.toolCallId === this.waiting[i].toolCallId);
        if (shown !== undefined) shown.result = result;
      };
      const notRun = (i: number, output: string) => {
        const c = this.waiting[i];
        results.push(toolResultEntry(this.turn, this.messageId, c.toolCallId, c.name, { status: 'error', output }));
        settle(i, 'not_run');
      };
      for (let i = 0; i < this.waiting.length; i++) {
        const call = this.waiting[i];
        const rec = recorded[i];
        if (signal.aborted) notRun(i, 'not run: the re-run was cancelled');
        else if (stopped) notRun(i, 'not run: the re-run stopped at an earlier call of this request');
        else if (!live && rec !== undefined && rec.result !== null && sameToolCall(call, rec)) {
          const from = { sessionId: this.data.sourceSessionId, entryId: rec.result.entryId };
          results.push(replayedResultEntry(this.turn, this.messageId, call.toolCallId, call.name, rec.result, from));
          settle(i, 'replayed');
        } else {
          this.divergence ??= this.divergenceAt(i, call, rec);
          if (opts.live === undefined) {
            stopped = true;
            notRun(i, `not run: this call differs from the one recorded at this step (${describeRecorded(call, rec)}); the re-run stopped here`);
          } else {
            live = true;
            // Earlier results of this request first: a tool may read the tape.
            await this.append(results.splice(0));
            results.push(...(await this.runLive(opts.live, call)));
            settle(i, 'run');
          }
        }
      }
      if (!stopped && !live && this.waiting.length > 0 && recorded.length > this.waiting.length) {
        // The recording's later results may depend on what the left-out call did.
        this.divergence ??= this.divergenceAt(this.waiting.length, null, recorded[this.waiting.length]);
        if (opts.live === undefined) stopped = true;
        else live = true;
      }
      const end: TurnEndOutcome | null = stopped ? 'diverged' : signal.aborted ? 'cancelled' : this.requestsSent >= maxRounds ? 'round_limit' : null;
      await this.append(end === null ? results : [...results, turnEndEntry(this.turn, end, this.seq)]);
      if (end !== null) return this.result(end);

      const seq = this.seq + 1;
      const { request, manifest } = assembleVaried(
        this.tape,
        this.forkSessionId,
        this.rebuilt,
        { turnId: this.turn.turnId, requestSeq: seq, viewId: `${this.turn.turnId}/${seq}`, assembledAt: this.now() },
        (input) => this.model.countTokens(input),
        this.options.rebuild?.rebuilders,
      );
      const ended = await this.request(seq, request, manifest, []);
      if (ended !== null) return this.result(ended);
    }
  }

  private async runLive(live: LiveTools, call: StoredCall): Promise<NewEntry[]> {
    const { turn, messageId } = this;
    const result: ToolResult = isObject(call.input)
      ? await live.tools.invoke(call.name, call.input, {
          ...live.context,
          tape: this.tape.session(this.forkSessionId).tapePort(),
          signal: this.options.signal,
          call: { turnId: turn.turnId, requestSeq: this.seq, toolCallId: call.toolCallId },
        })
      : { status: 'error', output: `invalid call of ${call.name}: its arguments are not a JSON object; nothing was run` };
    const entries = [toolResultEntry(turn, messageId, call.toolCallId, call.name, result)];
    if (result.status === 'error')
      entries.push(toolErrorEntry(turn, messageId, call.toolCallId, call.name, isObject(call.input) ? 'tool' : 'invalid_input', result.output));
    return entries;
  }

  private divergenceAt(index: number, call: StoredCall | null, rec: RecordedCall | undefined): Divergence {
    return {
      requestSeq: this.seq,
      index,
      call: call === null ? null : { name: call.name, input: call.input },
      recorded: rec === undefined ? null : { name: rec.name, input: rec.input, entryId: rec.entryId },
    };
  }

  /**
   * The source's tool calls of the re-run request's turn, by request number, from the re-run
   * request to the turn's end, each with its result (a crash repair's stand-in is none: the call
   * never finished).
   */
  private recordedCalls(): Map<number, RecordedCall[]> {
    if (this.recorded !== undefined) return this.recorded;
    const { sourceSessionId, sourceEntryId, turnId } = this.data;
    const byRequest = new Map<number, RecordedCall[]>();
    const byPair = new Map<string, RecordedCall>();
    let seq: number | null = null;
    const turnOf = (e: Entry): unknown => (e.kind === 'event' ? (e.payload.data as { turnId?: unknown } | undefined)?.turnId : e.meta.turnId);
    for (const e of this.tape.reader.entries(sourceSessionId, { fromEntryId: sourceEntryId })) {
      if (turnOf(e) !== turnId) continue;
      if (e.kind === 'event' && e.name === TURN_END) break;
      if (e.kind === 'event' && e.name === VIEW_ASSEMBLED) seq = manifestOfEntry(e).requestSeq;
      else if (e.kind === 'tool_call' && seq !== null) {
        const call: RecordedCall = { entryId: e.entryId, toolCallId: String(e.payload.toolCallId), name: e.name, input: e.payload.input, result: null };
        byRequest.set(seq, [...(byRequest.get(seq) ?? []), call]);
        byPair.set(pairKey(String(e.payload.messageId), call.toolCallId), call);
      } else if (e.kind === 'tool_result' && !isInterruptedResultKey(e.provenanceKey)) {
        const call = byPair.get(pairKey(String(e.payload.messageId), String(e.payload.toolCallId)));
        if (call !== undefined)
          call.result = {
            entryId: e.entryId,
            status: e.payload.status === 'ok' ? 'ok' : 'error',
            output: String(e.payload.output),
            truncated: e.payload.truncated === true,
          };
      }
    }
    this.recorded = byRequest;
    return byRequest;
  }
}

function describeRecorded(call: StoredCall, rec: RecordedCall | undefined): string {
  if (rec === undefined) return 'the recording made no call here';
  if (rec.name !== call.name) return `the recording called ${rec.name}`;
  if (rec.result === null) return `the recording's ${rec.name} call here has no result`;
  return `the recording called ${rec.name} with other arguments`;
}
