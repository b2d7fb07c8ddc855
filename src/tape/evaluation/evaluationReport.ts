import { EVAL_REQUEST, EVAL_SUMMARY } from '../entryNames';
import type { Entry } from '../entry';
import {
  EVAL_START_ENTRY_ID,
  evalDataOf,
  evalSessionPrefix,
  evalStartOf,
  evaluationSummarySchema,
  requestEvaluationSchema,
  type EvalStartState,
  type EvalStop,
  type EvaluationSummary,
  type RequestEvaluation,
} from './evaluationEntries';

/**
 * An evaluation's report, as `evaluateSession` (src/rerun/evaluate.ts) returns it and as it is
 * read back from an evaluation session: the same object either way, so a host can show one it
 * just ran and one the tape holds alike, and compare them.
 */

export interface EvaluationReport {
  sessionId: string;
  /** The model's id (`start.model` has its vendor too). */
  model: string;
  /** null when not recorded. */
  evalSessionId: string | null;
  start: EvalStartState;
  /** In the evaluated session's order. */
  requests: RequestEvaluation[];
  summary: EvaluationSummary;
  /** false for a recorded evaluation without its summary (the process died meanwhile): `summary` is then recomputed from its requests. */
  complete: boolean;
}

/** What reading an evaluation needs of a tape: a store or a lineage reader. */
export interface EvaluationReads {
  getEntry(sessionId: string, entryId: number): Entry | undefined;
  entriesAfter(sessionId: string, afterEntryId: number): Entry[];
}

/** The summary of `results` (in the session's order) out of `selected` requests. */
export function summarize(results: readonly RequestEvaluation[], selected: number, stopped: EvalStop): EvaluationSummary {
  const count = (status: RequestEvaluation['status']) => results.filter((r) => r.status === status).length;
  const first = results.find((r) => r.status === 'diverged');
  const recorded = { input: 0, output: 0, cached: 0 };
  const rerun = { input: 0, output: 0, cached: 0 };
  let tokenRequests = 0;
  const latency = { requests: 0, recorded: 0, rerun: 0, delta: 0 };
  for (const r of results) {
    const was = r.recorded.tokens;
    const now = r.rerun?.tokens ?? null;
    if (was !== null && now !== null) {
      tokenRequests++;
      for (const k of ['input', 'output', 'cached'] as const) {
        recorded[k] += was[k];
        rerun[k] += now[k];
      }
    }
    if (r.recorded.latencyMs !== null && r.rerun !== null) {
      latency.requests++;
      latency.recorded += r.recorded.latencyMs;
      latency.rerun += r.rerun.latencyMs;
    }
  }
  latency.delta = latency.rerun - latency.recorded;
  const failed = count('failed');
  return {
    requests: results.length,
    agree: count('agree'),
    diverged: count('diverged'),
    failed,
    notEvaluated: selected - results.length,
    firstDivergence: first === undefined ? null : { entryId: first.entryId, turnId: first.turnId, requestSeq: first.requestSeq, reason: first.reason ?? '' },
    tokens: {
      requests: tokenRequests,
      recorded,
      rerun,
      delta: { input: rerun.input - recorded.input, output: rerun.output - recorded.output, cached: rerun.cached - recorded.cached },
    },
    latencyMs: latency,
    stopped,
    modelFailed: stopped?.reason === 'model_failed' || (results.length > 0 && failed === results.length),
  };
}

/** The report of evaluation session `evalSessionId`; throws when it is not one (or its entries are not valid). */
export function readEvaluation(reads: EvaluationReads, evalSessionId: string): EvaluationReport {
  const start = evalStartOf(reads.getEntry(evalSessionId, EVAL_START_ENTRY_ID));
  if (start === null) throw new Error(`${evalSessionId} is not an evaluation session (its entry ${EVAL_START_ENTRY_ID} is no valid eval/start)`);
  const entries = reads.entriesAfter(evalSessionId, EVAL_START_ENTRY_ID).filter((e) => e.kind === 'event');
  const requests = entries
    .filter((e) => e.name === EVAL_REQUEST)
    .map((e) => evalDataOf(e, requestEvaluationSchema))
    .sort((a, b) => a.entryId - b.entryId);
  const summaryEntry = entries.find((e) => e.name === EVAL_SUMMARY);
  return {
    sessionId: start.sourceSessionId,
    model: start.model.id,
    evalSessionId,
    start,
    requests,
    summary: summaryEntry === undefined ? summarize(requests, start.requestIds.length, null) : evalDataOf(summaryEntry, evaluationSummarySchema),
    complete: summaryEntry !== undefined,
  };
}

/** The evaluation sessions of `sessionId` among `sessionIds` (a tape's sessions): named after it and starting with an `eval/start` that names it. */
export function evaluationSessionsOf(sessionIds: Iterable<string>, reads: EvaluationReads, sessionId: string): string[] {
  const prefix = evalSessionPrefix(sessionId);
  const found: string[] = [];
  for (const id of sessionIds) {
    if (id.startsWith(prefix) && evalStartOf(reads.getEntry(id, EVAL_START_ENTRY_ID))?.sourceSessionId === sessionId) found.push(id);
  }
  return found;
}
