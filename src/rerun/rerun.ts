import { VIEW_ASSEMBLED, RERUN_REQUEST, SYSTEM_TOOLS, TURN_END } from '../tape/entryNames';
import { DEFAULT_MAX_ROUNDS } from '../agent/agentSession';
import { TurnDriver, type WaitingCalls } from '../agent/loop';
import type { ModelPort, ToolCall } from '../agent/model/modelPort';
import type { RetryPolicy } from '../agent/model/retry';
import type { ModelResponse } from '../agent/model/sendRequest';
import type { OpenTape } from '../agent/session/openTape';
import { toolboxExecutor, UNNAMED_TOOL } from '../agent/toolExecutor';
import type { ToolContext, Toolbox } from '../agent/tools/tool';
import { rerunMessageId, rerunOfSession, rerunRequestEntry, type RerunRequestData } from '../tape/evaluation/rerunEntries';
import { ForkRefusedError, forkStartOf, FORK_START_ENTRY_ID } from '../tape/fork';
import { isInterruptedResultKey } from '../tape/interruptedKey';
import { manifestOfEntry, sealManifest, type ViewManifest } from '../tape/manifest';
import { pairKey } from '../tape/toolPairs';
import { type TurnEndOutcome } from '../tape/turnEntries';
import { rebuildRequest, type RebuildOptions, type RebuiltRequest } from './rebuildRequest';
import { recordedCallsOf, RecordedToolExecutor, type Divergence } from './recordedToolExecutor';
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
  const run = new ForkRun(tape, model, fork.forkSessionId, fork.forkId, data, rebuilt, options);
  const first = await run.driver.send(data.requestSeq, [rerunRequestEntry(fork.forkSessionId, data)], { request: rebuilt.request, manifest });
  if (!('calls' in first)) return run.result(first.outcome);
  return options.continue === undefined ? run.result('recorded') : run.continue(first, 1, options.continue);
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
    .map((e) => storedCall(String(e.payload.toolCallId), e.name, e.payload.input));
  const rebuilt = rebuildRequest(tape, data.sourceSessionId, data.sourceEntryId, data.variation as Variation, options.rebuild);
  const run = new ForkRun(tape, model, forkSessionId, fork.forkId, data, rebuilt, options);
  return run.continue({ requestSeq: seq, messageId, calls: waiting }, requests.length, options.continue);
}

/** A call as the fork stored it, as the model sent it: arguments that were not a JSON object are stored as their raw text. */
function storedCall(id: string, name: string, input: unknown): ToolCall {
  return isObject(input)
    ? { id, name, valid: true, arguments: input, rawArguments: JSON.stringify(input) }
    : { id, name, valid: false, rawArguments: typeof input === 'string' ? input : JSON.stringify(input), problem: 'its arguments are not a JSON object' };
}

/**
 * One re-run fork being written through the agent's turn loop: the re-run request first (sent as
 * rebuilt), later ones assembled from the fork's view under the same variation, the
 * messages named as a re-run's, the calls answered from the recording.
 */
class ForkRun {
  readonly driver: TurnDriver;
  private readonly steps: RerunStep[] = [];
  private executor: RecordedToolExecutor | undefined;

  constructor(
    private readonly tape: OpenTape,
    model: ModelPort,
    private readonly forkSessionId: string,
    private readonly forkId: string,
    private readonly data: RerunRequestData,
    private readonly rebuilt: RebuiltRequest,
    options: Omit<RerunOptions, 'continue'>,
  ) {
    const now = options.now ?? Date.now;
    const { turnId } = data;
    let sent: { viewEntryId: number; manifest: ViewManifest } | undefined;
    this.driver = new TurnDriver(
      {
        tape: tape.store,
        sessionId: forkSessionId,
        model,
        signal: options.signal,
        retry: options.retry,
        now,
        assemble: ({ requestSeq }) =>
          assembleVaried(
            tape,
            forkSessionId,
            rebuilt,
            { turnId, requestSeq, viewId: `${turnId}/${requestSeq}`, assembledAt: now() },
            (input) => model.countTokens(input),
            options.rebuild?.rebuilders,
          ),
        // The orderSeq after the fork view's last message: the source's request had the same.
        messageOf: ({ requestSeq }) => ({
          messageId: rerunMessageId(turnId, forkId, requestSeq),
          orderSeq: (tape.folds.view(forkSessionId, { includePending: true }).messages.at(-1)?.orderSeq ?? 0) + 1,
        }),
        toolSetRecorded: (tools, hash) =>
          tools.length === 0 || tape.reader.entries(forkSessionId, { kind: 'system', name: SYSTEM_TOOLS }).some((e) => e.payload.hash === hash),
        onRequest: (_slot, manifest) => (sent = { viewEntryId: tape.reader.headEntryId(forkSessionId), manifest }),
        onResponse: ({ requestSeq }, response) => {
          if (sent !== undefined) this.steps.push({ requestSeq, ...sent, response, calls: callsOf(response) });
        },
      },
      { sessionId: forkSessionId, turnId },
    );
  }

  result(outcome: RerunOutcome): RerunResult {
    const fate = (requestSeq: number, index: number): RerunCall['result'] =>
      this.executor?.fateOf(requestSeq, index) ?? (outcome === 'recorded' ? 'waiting' : 'not_run');
    return {
      forkSessionId: this.forkSessionId,
      forkId: this.forkId,
      sourceSessionId: this.data.sourceSessionId,
      sourceEntryId: this.data.sourceEntryId,
      rebuilt: this.rebuilt,
      steps: this.steps.map((s) => ({ ...s, calls: s.calls.map((c, i) => ({ ...c, result: fate(s.requestSeq, i) })) })),
      outcome,
      divergence: this.executor?.divergence ?? null,
    };
  }

  /**
   * Answers the waiting calls of request `waiting.requestSeq` (the fork's `sent`-th request) from
   * the recording, or live, and goes on until the turn ends: at most `maxRounds` requests in the fork.
   */
  async continue(waiting: WaitingCalls, sent: number, opts: ContinueOptions): Promise<RerunResult> {
    const { live } = opts;
    const { sourceSessionId, sourceEntryId, turnId } = this.data;
    this.executor = new RecordedToolExecutor(
      recordedCallsOf(this.tape.reader, sourceSessionId, sourceEntryId, turnId),
      sourceSessionId,
      live && toolboxExecutor(live.tools, { ...live.context, tape: this.tape.session(this.forkSessionId).tapePort() }),
    );
    const ended = await this.driver.goOn(waiting, waiting.requestSeq + (opts.maxRounds ?? DEFAULT_MAX_ROUNDS) - sent, this.executor);
    return this.result(ended.outcome);
  }
}

/** A step's calls as the fork records them, not yet answered. */
const callsOf = (response: ModelResponse): RerunCall[] =>
  response.toolCalls.map((c) => ({
    toolCallId: c.id,
    name: c.name || UNNAMED_TOOL,
    input: c.valid ? c.arguments : c.rawArguments,
    result: 'waiting',
  }));
