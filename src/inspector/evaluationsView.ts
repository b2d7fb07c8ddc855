import type { TapeStore } from '../store/tapeStore';
import { EVAL_START_ENTRY_ID, evalStartOf, type EvalStop, type RequestEvaluation, type ToolCallFacts } from '../tape/evaluation/evaluationEntries';
import { evaluationSessionsOf, readEvaluation, type EvaluationReads } from '../tape/evaluation/evaluationReport';
import type { EvaluationListItem, EvaluationReport, EvaluationRow, ResponseSide } from '../protocol/inspector';

/**
 * The evaluations of a session as the inspector shows them: each is a session of its own
 * (`<source>::eval::<id>`, confirmed by its `eval/start`), read with `readEvaluation` and never
 * written. The recorded answer's text comes from the evaluated session, at the entry the
 * evaluation names.
 */

const modelLabel = (m: { vendor: string; id: string }): string => `${m.vendor}/${m.id}`;
const startedAt = (reads: EvaluationReads, evalSessionId: string): number => reads.getEntry(evalSessionId, EVAL_START_ENTRY_ID)?.createdAt ?? 0;

/** The evaluation sessions of `sessionId`, newest first; an evaluation session lists itself. */
export function evaluationsOf(store: Pick<TapeStore, 'sessions'>, reads: EvaluationReads, sessionId: string): EvaluationListItem[] {
  const own = evalStartOf(reads.getEntry(sessionId, EVAL_START_ENTRY_ID)) !== null;
  const ids = own
    ? [sessionId]
    : evaluationSessionsOf(
        store.sessions().map((s) => s.sessionId),
        reads,
        sessionId,
      );
  return ids
    .map((evalSessionId) => {
      const { start, summary, complete } = readEvaluation(reads, evalSessionId);
      return {
        evalSessionId,
        evalId: start.evalId,
        model: modelLabel(start.model),
        startedAt: startedAt(reads, evalSessionId),
        complete,
        summary: { requests: summary.requests, agree: summary.agree, diverged: summary.diverged, failed: summary.failed, notEvaluated: summary.notEvaluated },
      };
    })
    .sort((a, b) => b.startedAt - a.startedAt || (a.evalSessionId < b.evalSessionId ? 1 : -1));
}

/** One evaluation's report: its rows in the evaluated session's order, its summary, the first request that did not agree side by side. */
export function evaluationReport(reads: EvaluationReads, evalSessionId: string): EvaluationReport {
  const { start, requests, summary, complete } = readEvaluation(reads, evalSessionId);
  const first = requests.find((r) => r.status !== 'agree');
  return {
    evalSessionId,
    evalId: start.evalId,
    model: modelLabel(start.model),
    startedAt: startedAt(reads, evalSessionId),
    variation: JSON.stringify(start.variation),
    rows: requests.map(rowOf),
    complete,
    summary: {
      requests: summary.requests,
      agree: summary.agree,
      diverged: summary.diverged,
      failed: summary.failed,
      notEvaluated: summary.notEvaluated,
      tokenDelta: { input: summary.tokens.delta.input, output: summary.tokens.delta.output, cached: summary.tokens.delta.cached },
      latencyDeltaMs: summary.latencyMs.delta,
      stopped: stopInWords(summary.stopped),
    },
    firstDivergence:
      first === undefined
        ? null
        : {
            entryId: first.entryId,
            status: first.status,
            reason: first.reason ?? first.status,
            recorded: recordedSide(reads, start.sourceSessionId, first),
            rerun: first.rerun && {
              finish: first.rerun.finish,
              text: first.rerun.text,
              toolCalls: first.rerun.toolCalls.map(callLine),
              tokens: first.rerun.tokens,
              latencyMs: first.rerun.latencyMs,
            },
          },
  };
}

function rowOf(r: RequestEvaluation): EvaluationRow {
  return {
    entryId: r.entryId,
    turnId: r.turnId,
    requestSeq: r.requestSeq,
    status: r.status,
    reason: r.reason,
    textSimilarity: r.textSimilarity,
    recordedTokens: r.recorded.tokens,
    rerunTokens: r.rerun?.tokens ?? null,
    recordedLatencyMs: r.recorded.latencyMs,
    rerunLatencyMs: r.rerun?.latencyMs ?? null,
  };
}

/** A tool call on one line: its name and its arguments as JSON (raw text that was not an object as it came). */
export const callLine = (c: ToolCallFacts): string => `${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`;

/** The recorded answer: its text from the evaluated session (read through its lineage), the rest as the evaluation recorded it. */
function recordedSide(reads: EvaluationReads, sourceSessionId: string, r: RequestEvaluation): ResponseSide {
  const id = r.recorded.messageEntryId;
  const content = id === null ? undefined : reads.getEntry(sourceSessionId, id)?.payload.content;
  return {
    finish: r.recorded.finish,
    text: typeof content === 'string' ? content : '',
    toolCalls: r.recorded.toolCalls.map(callLine),
    tokens: r.recorded.tokens,
    latencyMs: r.recorded.latencyMs,
  };
}

function stopInWords(stop: EvalStop): string | null {
  if (stop === null) return null;
  switch (stop.reason) {
    case 'budget':
      return `the request budget (${stop.maxRequests}) was reached`;
    case 'cancelled':
      return 'it was cancelled';
    case 'model_failed':
      return `the model failed at #${stop.entryId} (${stop.failureClass}): ${stop.message}`;
  }
}
