import { randomBytes } from 'crypto';
import * as z from 'zod';
import { sendRequest, type ModelResponse } from '../agent/model/sendRequest';
import type { ModelPort } from '../agent/model/modelPort';
import type { FailureClass } from '../agent/model/providerError';
import type { RetryPolicy } from '../agent/model/retry';
import type { ReadableTape, TapeReader } from '../store/lineage';
import { errorMessage } from '../tape/errorMessage';
import {
  evalIdSchema,
  evalRequestEntry,
  evalSessionId,
  evalStartEntry,
  evalSummaryEntry,
  TEXT_SIMILARITY_MEASURE,
  type EvalStartState,
  type EvalStop,
  type RequestEvaluation,
  type TokenCounts,
} from '../tape/evaluation/evaluationEntries';
import { summarize, type EvaluationReport } from '../tape/evaluation/evaluationReport';
import { manifestOfEntry } from '../tape/manifest';
import { DEFAULT_TEXT_THRESHOLD, judge } from './agreement';
import { RebuildError } from './rebuildError';
import { RecordedRequests, type RebuildOptions, type RebuiltRequest } from './rebuildRequest';
import { RecordedResponses, type RecordedResponse } from './recordedResponse';
import { variationSchema, type Variation } from './variation';
import { describeDifference } from './verify';

/**
 * Evaluating a session: every recorded request of it (or those chosen) rebuilt from its own tape
 * prefix, optionally varied, sent to a model and its answer judged against the one recorded after
 * it (agreement.ts). Each step is judged on the recorded input, never on the model's earlier
 * answers, so one divergence does not make every later request diverge. The result is recorded
 * as an evaluation session (evaluationEntries.ts) unless asked not to; the evaluated session is
 * only read. Bounded by a request budget, one request at a time unless asked for more, cancellable.
 */

export interface EvaluationProgress {
  /** Requests judged so far, of `total` (the selection within the budget). */
  done: number;
  total: number;
  /** The request just judged. */
  result: RequestEvaluation;
}

export interface EvaluateOptions {
  /** Applied to every request (`{}`: the recorded requests exactly). */
  variation?: Variation;
  /** The requests to evaluate, entry ids of the session's own requests; all of them by default. */
  entryIds?: readonly number[];
  /** At most this many requests are sent (the first ones of the selection); the rest are reported as not evaluated. */
  maxRequests?: number;
  /** Requests in flight at once; 1 by default, so a local model is not swamped and the order is the session's. */
  concurrency?: number;
  /** Text answers agree at or above this similarity (0..1); DEFAULT_TEXT_THRESHOLD by default. */
  textThreshold?: number;
  /** false: nothing is written (the tape may then be read-only). */
  record?: boolean;
  /** The evaluation session's id is `<session>::eval::<evalId>`; generated when absent. */
  evalId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: EvaluationProgress) => void;
  retry?: RetryPolicy;
  now?: () => number;
  rebuild?: RebuildOptions;
}

/** Options that cannot be an evaluation: no request is sent and nothing is written. */
export class EvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/** Failures that every later request would meet too: the evaluation stops at the first. */
const STOPPING: ReadonlySet<FailureClass> = new Set<FailureClass>(['auth', 'model_missing', 'unreachable', 'key_withheld']);

const newEvalId = (now: number): string => `e${now.toString(36)}${randomBytes(3).toString('hex')}`;

const tokensOf = (r: ModelResponse): TokenCounts | null =>
  r.usage === null ? null : { input: r.usage.inputTokens, output: r.usage.outputTokens, cached: r.usage.cachedInputTokens ?? 0 };

export async function evaluateSession(tape: ReadableTape, sessionId: string, model: ModelPort, options: EvaluateOptions = {}): Promise<EvaluationReport> {
  const now = options.now ?? Date.now;
  const signal = options.signal ?? new AbortController().signal;
  const requests = new RecordedRequests(tape, sessionId, options.rebuild);
  const parsed = variationSchema.safeParse(options.variation ?? {});
  if (!parsed.success) throw new RebuildError('invalid_variation', `invalid variation: ${z.prettifyError(parsed.error)}`);
  const variation = parsed.data;
  const selected = selection(requests.requestIds(), options.entryIds, sessionId);
  const concurrency = positiveInt(options.concurrency ?? 1, 'concurrency');
  const maxRequests = options.maxRequests === undefined ? null : positiveInt(options.maxRequests, 'maxRequests');
  const textThreshold = options.textThreshold ?? DEFAULT_TEXT_THRESHOLD;
  if (!(textThreshold >= 0 && textThreshold <= 1)) throw new EvaluationError(`the text threshold must be between 0 and 1, got ${textThreshold}`);
  const evalId = options.evalId ?? newEvalId(now());
  if (!evalIdSchema.safeParse(evalId).success)
    throw new EvaluationError(`${JSON.stringify(evalId)} is not an evaluation id (1 to 64 letters, digits, ".", "_", "-")`);
  const record = options.record !== false;
  const evalSession = record ? evalSessionId(sessionId, evalId) : null;
  if (evalSession !== null && tape.store.headEntryId(evalSession) > 0) throw new EvaluationError(`the tape already has an evaluation session ${evalSession}`);

  const start: EvalStartState = {
    sourceSessionId: sessionId,
    sourceHeadEntryId: tape.reader.headEntryId(sessionId),
    evalId,
    model: { vendor: model.info.vendor, id: model.info.id },
    variation,
    requestIds: selected,
    maxRequests,
    concurrency,
    textThreshold,
    similarity: TEXT_SIMILARITY_MEASURE,
  };
  const append = async (entry: ReturnType<typeof evalStartEntry>) => {
    if (evalSession !== null) await tape.store.appendMany(evalSession, [entry]);
  };
  await append(evalStartEntry(start));

  const todo = maxRequests === null ? selected : selected.slice(0, maxRequests);
  const responses = new RecordedResponses(requests.replay);
  const results: RequestEvaluation[] = [];
  let stopped: EvalStop = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (stopped === null && !signal.aborted && next < todo.length) {
      const entryId = todo[next++];
      const result = await evaluateOne(tape.reader, requests, responses, entryId, model, variation, { signal, retry: options.retry, now, textThreshold });
      if (result === 'cancelled') return;
      results.push(result);
      await append(evalRequestEntry(result));
      options.onProgress?.({ done: results.length, total: todo.length, result });
      const failure = result.error;
      if (failure?.source === 'model' && STOPPING.has(failure.code as FailureClass) && stopped === null)
        stopped = { reason: 'model_failed', entryId, failureClass: failure.code, message: failure.message };
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(todo.length, 1)) }, worker));
  if (stopped === null && signal.aborted) stopped = { reason: 'cancelled' };
  if (stopped === null && todo.length < selected.length && maxRequests !== null) stopped = { reason: 'budget', maxRequests };

  results.sort((a, b) => a.entryId - b.entryId);
  const summary = summarize(results, selected.length, stopped);
  await append(evalSummaryEntry(summary));
  return { sessionId, model: model.info.id, evalSessionId: evalSession, start, requests: results, summary, complete: true };
}

/** The requests asked for, in the session's order; each must be one of the session's own. */
function selection(all: readonly number[], asked: readonly number[] | undefined, sessionId: string): number[] {
  if (asked === undefined) return [...all];
  const known = new Set(all);
  const unknown = asked.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new RebuildError(
      'not_a_request',
      `${unknown.map((id) => `#${id}`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among the recorded requests of ${sessionId} (${all.length} requests)`,
    );
  const wanted = new Set(asked);
  return all.filter((id) => wanted.has(id));
}

function positiveInt(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new EvaluationError(`${name} must be a positive integer, got ${n}`);
  return n;
}

interface SendSettings {
  signal: AbortSignal;
  retry: RetryPolicy | undefined;
  now: () => number;
  textThreshold: number;
}

async function evaluateOne(
  reader: TapeReader,
  requests: RecordedRequests,
  responses: RecordedResponses,
  entryId: number,
  model: ModelPort,
  variation: Variation,
  settings: SendSettings,
): Promise<RequestEvaluation | 'cancelled'> {
  let rebuilt: RebuiltRequest;
  try {
    rebuilt = requests.rebuild(entryId, variation);
  } catch (e) {
    if (!(e instanceof RebuildError)) throw e;
    return failedRebuild(reader, requests.sessionId, responses, entryId, e);
  }
  const { turnId, requestSeq } = rebuilt.recorded;
  const recorded = responses.of(entryId, turnId, requestSeq);
  const response = await sendRequest(model, rebuilt.request, { signal: settings.signal, retry: settings.retry, now: settings.now });
  if (response.status === 'cancelled') return 'cancelled';
  const notes = [
    ...rebuilt.notes,
    ...(rebuilt.difference === null ? [] : [`the request sent differs from the recorded one: ${describeDifference(rebuilt.difference)}`]),
  ];
  const base = {
    entryId,
    turnId,
    requestSeq,
    sent: {
      promptHash: rebuilt.manifest.hashes.promptHash,
      toolsHash: rebuilt.manifest.hashes.toolsHash,
      promptHashMatches: rebuilt.promptHashMatches,
      toolsHashMatches: rebuilt.toolsHashMatches,
    },
    recorded: recorded.facts,
    notes,
  };
  if (response.status === 'failed') {
    const error = response.error ?? { failureClass: 'bad_response', message: 'the model failed' };
    return { ...base, ...failedParts(), reason: error.message, error: { source: 'model', code: error.failureClass, message: error.message } };
  }
  const toolCalls = response.toolCalls.map((c) => ({ name: c.name, arguments: c.valid ? c.arguments : c.rawArguments }));
  const finish = toolCalls.length > 0 ? 'tool_calls' : 'text';
  const j = judge(recorded, { finish, text: response.text, toolCalls }, settings.textThreshold);
  return {
    ...base,
    status: j.status,
    reason: j.reason,
    rerun: {
      finish,
      text: response.text,
      toolCalls,
      stopReason: response.stopReason,
      tokens: tokensOf(response),
      latencyMs: response.latencyMs,
      attempts: response.attempts.length,
    },
    finishEqual: j.finishEqual,
    toolNamesEqual: j.toolNamesEqual,
    toolArgumentsEqual: j.toolArgumentsEqual,
    textSimilarity: j.textSimilarity,
    error: null,
  };
}

const failedParts = () => ({
  status: 'failed' as const,
  rerun: null,
  finishEqual: false,
  toolNamesEqual: false,
  toolArgumentsEqual: false,
  textSimilarity: null,
});

/** A request that cannot be sent again (its tools were never recorded, the variation names what it lacks): failed, nothing sent. */
function failedRebuild(reader: TapeReader, sessionId: string, responses: RecordedResponses, entryId: number, e: RebuildError): RequestEvaluation {
  let turnId = '';
  let requestSeq = 1;
  let recorded: RecordedResponse = { facts: { messageEntryId: null, finish: null, toolCalls: [], tokens: null, latencyMs: null }, text: '' };
  try {
    ({ turnId, requestSeq } = manifestOfEntry(reader.requireEntry(sessionId, entryId)));
    recorded = responses.of(entryId, turnId, requestSeq);
  } catch {
    // An invalid record: the rebuild error says what is wrong with it.
  }
  return {
    entryId,
    turnId,
    requestSeq,
    sent: null,
    recorded: recorded.facts,
    notes: [],
    ...failedParts(),
    reason: e.message,
    error: { source: 'rebuild', code: e.code, message: errorMessage(e) },
  };
}
