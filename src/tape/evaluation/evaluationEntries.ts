import { EVAL_START, EVAL_REQUEST, EVAL_SUMMARY } from '../entryNames';
import * as z from 'zod';
import type { Entry, JsonObject, NewEntry } from '../entry';
import { namedProvenanceKey } from '../provenanceKey';

/**
 * An evaluation of a session on the tape: a session of its own, `<source>::eval::<id>`, whose
 * entry 2 is the anchor `eval/start` naming the session it evaluated, then one `eval/request`
 * event per request judged (in the order they finished) and an `eval/summary` event when the
 * evaluation ended. The evaluated session itself is never written to: an evaluation is found from
 * it by its id's prefix and confirmed by its `eval/start`. Payloads are loose objects, as every
 * entry's, so a later version's fields are kept; what the code reads is checked with these schemas.
 */

/** The entry id of `eval/start` in an evaluation session (`session/start` is 1). */
export const EVAL_START_ENTRY_ID = 2;

const EVAL_SEPARATOR = '::eval::';

/** Evaluation ids are short and safe in a session id, a file name and a command line (as fork ids). */
export const evalIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an evaluation id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');

export const evalSessionId = (sourceSessionId: string, evalId: string): string => `${sourceSessionId}${EVAL_SEPARATOR}${evalId}`;

/** The prefix every evaluation session of `sourceSessionId` has. */
export const evalSessionPrefix = (sourceSessionId: string): string => `${sourceSessionId}${EVAL_SEPARATOR}`;

/** The measure `textSimilarity` is (see src/rerun/textSimilarity.ts); named so a later measure is told apart. */
export const TEXT_SIMILARITY_MEASURE = 'token-multiset-jaccard/1';

const count = z.number().int().nonnegative();
const entryId = z.number().int().positive();

export const tokenCountsSchema = z.looseObject({ input: count, output: count, cached: count });
export type TokenCounts = z.infer<typeof tokenCountsSchema>;

/** A tool call as compared: its name and arguments (an object, or the raw text of arguments that were not one). */
export const toolCallFactsSchema = z.looseObject({ name: z.string(), arguments: z.unknown() });
export type ToolCallFacts = z.infer<typeof toolCallFactsSchema>;

export const FINISH_KINDS = ['text', 'tool_calls'] as const;
export type FinishKind = (typeof FINISH_KINDS)[number];
export const REQUEST_STATUSES = ['agree', 'diverged', 'failed'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** The `eval/start` anchor's state: what was evaluated, against which model, how. */
export const evalStartState = z.looseObject({
  sourceSessionId: z.string().min(1),
  /** The source's head when the evaluation started: what it read. */
  sourceHeadEntryId: z.number().int().min(1),
  evalId: evalIdSchema,
  model: z.looseObject({ vendor: z.string(), id: z.string() }),
  /** The variation applied to every request, as parsed (`{}` for none). */
  variation: z.record(z.string(), z.unknown()),
  /** The requests selected, in order (entry ids of the source); those past the budget are not sent. */
  requestIds: z.array(entryId),
  maxRequests: z.number().int().positive().nullable(),
  concurrency: z.number().int().positive(),
  textThreshold: z.number().min(0).max(1),
  similarity: z.string(),
});
export type EvalStartState = z.infer<typeof evalStartState>;

/** What the tape recorded after the request: its answer (the final version of its assistant message), its calls and attempts. */
export const recordedFactsSchema = z.looseObject({
  /** The final version of the answer's message (sent, or error for a failed request); null when none was recorded. */
  messageEntryId: entryId.nullable(),
  /** null when the recorded request has no answer (it failed or was cancelled). */
  finish: z.enum(FINISH_KINDS).nullable(),
  toolCalls: z.array(toolCallFactsSchema),
  tokens: tokenCountsSchema.nullable(),
  latencyMs: z.number().nonnegative().nullable(),
});
export type RecordedFacts = z.infer<typeof recordedFactsSchema>;

/** The model's answer now. */
export const rerunFactsSchema = z.looseObject({
  finish: z.enum(FINISH_KINDS),
  text: z.string(),
  toolCalls: z.array(toolCallFactsSchema),
  stopReason: z.string().nullable(),
  tokens: tokenCountsSchema.nullable(),
  latencyMs: z.number().nonnegative(),
  attempts: z.number().int().nonnegative(),
});
export type RerunFacts = z.infer<typeof rerunFactsSchema>;

/** The `eval/request` event's data: one request re-run and judged. */
export const requestEvaluationSchema = z.looseObject({
  entryId,
  turnId: z.string(),
  requestSeq: z.number().int().positive(),
  status: z.enum(REQUEST_STATUSES),
  /** Why it is not `agree`, in words; null when it agrees. */
  reason: z.string().nullable(),
  /** Hashes of the request as sent, and whether they are the recorded ones; null when it could not be rebuilt. */
  sent: z.looseObject({ promptHash: z.string(), toolsHash: z.string(), promptHashMatches: z.boolean(), toolsHashMatches: z.boolean() }).nullable(),
  recorded: recordedFactsSchema,
  /** null when it failed. */
  rerun: rerunFactsSchema.nullable(),
  /** Same finish kind, and (for tool calls) the same names in the same order / also the same canonical arguments. */
  finishEqual: z.boolean(),
  toolNamesEqual: z.boolean(),
  toolArgumentsEqual: z.boolean(),
  /** TEXT_SIMILARITY_MEASURE of the two texts, 0..1; null when there is no answer to compare. */
  textSimilarity: z.number().min(0).max(1).nullable(),
  error: z.looseObject({ source: z.enum(['rebuild', 'model']), code: z.string(), message: z.string() }).nullable(),
  notes: z.array(z.string()),
});
export type RequestEvaluation = z.infer<typeof requestEvaluationSchema>;

/** Why an evaluation ended before its last selected request; null when it ran them all. */
export const evalStopSchema = z
  .discriminatedUnion('reason', [
    z.looseObject({ reason: z.literal('budget'), maxRequests: z.number().int().positive() }),
    z.looseObject({ reason: z.literal('cancelled') }),
    /** A failure every later request would meet too (credentials, the model, the server's address). */
    z.looseObject({ reason: z.literal('model_failed'), entryId, failureClass: z.string(), message: z.string() }),
  ])
  .nullable();
export type EvalStop = z.infer<typeof evalStopSchema>;

const totals = z.looseObject({ recorded: z.number(), rerun: z.number(), delta: z.number() });

/** The `eval/summary` event's data. */
export const evaluationSummarySchema = z.looseObject({
  /** Requests judged (agree + diverged + failed). */
  requests: count,
  agree: count,
  diverged: count,
  failed: count,
  /** Selected requests not sent: past the budget, after a stop or a cancel. */
  notEvaluated: count,
  firstDivergence: z.looseObject({ entryId, turnId: z.string(), requestSeq: z.number().int().positive(), reason: z.string() }).nullable(),
  /** Sums over the requests with counts on both sides; delta = rerun - recorded. */
  tokens: z.looseObject({
    requests: count,
    recorded: tokenCountsSchema,
    rerun: tokenCountsSchema,
    delta: z.looseObject({ input: z.number(), output: z.number(), cached: z.number() }),
  }),
  /** Sums over the requests with a latency on both sides. */
  latencyMs: totals.extend({ requests: count }),
  stopped: evalStopSchema,
  /** No request got an answer: the evaluation stopped on a failure every request would meet, or every request judged failed. */
  modelFailed: z.boolean(),
});
export type EvaluationSummary = z.infer<typeof evaluationSummarySchema>;

export function evalStartEntry(state: EvalStartState): NewEntry {
  return { kind: 'anchor', name: EVAL_START, provenanceKey: EVAL_START, payload: { name: EVAL_START, state: state as JsonObject } };
}

/** One per request and evaluation: appending a request's result again writes nothing. */
export function evalRequestEntry(result: RequestEvaluation): NewEntry {
  return {
    kind: 'event',
    name: EVAL_REQUEST,
    provenanceKey: namedProvenanceKey(EVAL_REQUEST, result.entryId),
    payload: { name: EVAL_REQUEST, data: result as JsonObject },
  };
}

export function evalSummaryEntry(summary: EvaluationSummary): NewEntry {
  return { kind: 'event', name: EVAL_SUMMARY, provenanceKey: EVAL_SUMMARY, payload: { name: EVAL_SUMMARY, data: summary as JsonObject } };
}

const payloadField = (e: Entry, field: 'state' | 'data'): unknown => (e.payload as Record<string, unknown>)[field];

/** The `eval/start` state of a session's entry 2, or null when the session is not an evaluation. */
export function evalStartOf(entry: Entry | undefined): EvalStartState | null {
  if (entry === undefined || entry.kind !== 'anchor' || entry.name !== EVAL_START) return null;
  const parsed = evalStartState.safeParse(payloadField(entry, 'state'));
  return parsed.success ? parsed.data : null;
}

/** The data of an `eval/request` or `eval/summary` event, checked; throws naming the entry and the field. */
export function evalDataOf<T>(entry: Entry, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(payloadField(entry, 'data'));
  if (!parsed.success)
    throw new Error(`entry #${entry.entryId} (${entry.name}) of ${entry.sessionId} is not a valid ${entry.name}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
