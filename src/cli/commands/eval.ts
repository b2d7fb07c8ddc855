import { OpenTape } from '../../agent/session/openTape';
import { EvaluationError, evaluateSession } from '../../rerun/evaluate';
import { RebuildError } from '../../rerun/rebuildError';
import { RecordedRequests } from '../../rerun/rebuildRequest';
import type { Variation } from '../../rerun/variation';
import { openTapeFile } from '../../store/tapeFile';
import { TapeStore } from '../../store/tapeStore';
import type { RequestEvaluation, TokenCounts } from '../../tape/evaluation/evaluationEntries';
import type { EvaluationReport } from '../../tape/evaluation/evaluationReport';
import { oneLine } from '../../tape/oneLine';
import { int, parseArgs, required, str, UsageError, type Parsed } from '../args';
import { EXIT_INTERRUPTED, MODEL_FLAGS, modelFromFlags, withInterrupt } from '../modelFlags';
import { type Io, json, warnNearlyFull } from '../output';
import { systemPromptFlag } from '../systemPromptFlag';
import { requireSession, requireSqliteTape } from './session';

const REASON_MAX = 100;

/** `--requests A-B` (or `N`): the A-th to the B-th request of the session, 1-based as the table numbers them. */
function rangeOf(p: Parsed): { from: number; to: number } | undefined {
  const v = str(p, 'requests');
  if (v === undefined) return undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(v);
  const from = m === null ? NaN : Number(m[1]);
  const to = m === null ? NaN : Number(m[2] ?? m[1]);
  if (!(from >= 1 && to >= from && Number.isSafeInteger(to))) throw new UsageError(`--requests takes A-B (1 <= A <= B) or N, got ${JSON.stringify(v)}`);
  return { from, to };
}

function thresholdOf(p: Parsed): number | undefined {
  const v = str(p, 'text-threshold');
  if (v === undefined) return undefined;
  const t = Number(v);
  if (v.trim() === '' || !(t >= 0 && t <= 1)) throw new UsageError(`--text-threshold takes a number from 0 to 1, got ${JSON.stringify(v)}`);
  return t;
}

function variationOf(p: Parsed): Variation {
  const systemPrompt = systemPromptFlag(p);
  return systemPrompt === undefined ? {} : { systemPrompt };
}

/**
 * `agent-tape eval`: every recorded request of a session (or a range of them) sent again to a
 * model on its recorded context and judged against the recorded answer; a table and a summary,
 * the evaluation recorded as a session of its own unless `--no-record`. Exit 0 when it ran, 1
 * when the model failed (no answer at all, or a failure every request would meet), 2 for bad
 * input (nothing written), 130 when interrupted (what was judged is recorded).
 */
export async function evalCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, {
    valued: [...MODEL_FLAGS, 'requests', 'max-requests', 'concurrency', 'text-threshold', 'system-prompt'],
    switches: ['no-record', 'json'],
    positional: ['tape.sqlite'],
  });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  const model = modelFromFlags(p);
  const range = rangeOf(p);
  const maxRequests = int(p, 'max-requests');
  const concurrency = int(p, 'concurrency');
  const textThreshold = thresholdOf(p);
  const variation = variationOf(p);
  const record = !p.flags.has('no-record');
  if (record) requireSqliteTape('eval', file);

  const store = record ? await TapeStore.open(file, { create: false, onNearlyFull: warnNearlyFull(io) }) : await openTapeFile(file, { readOnly: true });
  try {
    requireSession(store, sessionId);
    const tape = new OpenTape(store);
    let entryIds: number[] | undefined;
    try {
      if (range !== undefined) {
        const all = new RecordedRequests(tape, sessionId).requestIds();
        if (range.to > all.length)
          throw new UsageError(`--requests ${range.from}-${range.to}: session ${sessionId} has ${all.length} recorded request${all.length === 1 ? '' : 's'}`);
        entryIds = all.slice(range.from - 1, range.to);
      }
      const report = await withInterrupt((signal) =>
        evaluateSession(tape, sessionId, model, {
          variation,
          entryIds,
          maxRequests,
          concurrency,
          textThreshold,
          record,
          signal,
          onProgress: ({ done, total, result }) => {
            if (!p.flags.has('json'))
              io.err(`[eval] ${done}/${total} #${result.entryId} ${result.status}${result.reason === null ? '' : `: ${oneLine(result.reason, REASON_MAX)}`}\n`);
          },
        }),
      );
      if (p.flags.has('json')) json(io, report);
      else printReport(io, report);
      if (report.summary.stopped?.reason === 'cancelled') return EXIT_INTERRUPTED;
      return report.summary.modelFailed ? 1 : 0;
    } catch (e) {
      // Checked before anything is sent or written: the user's input, not the model.
      if (e instanceof RebuildError || e instanceof EvaluationError) throw new UsageError(e.message);
      throw e;
    }
  } finally {
    await store.close();
  }
}

const tokens = (t: TokenCounts | null): string => (t === null ? '-' : `${t.input}/${t.output}/${t.cached}`);
const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : String(Math.round(v)));
const signed = (n: number): string => (n > 0 ? `+${n}` : String(Math.round(n)));

function row(r: RequestEvaluation, n: number): string[] {
  return [
    String(n),
    `#${r.entryId}`,
    `${r.turnId}/${r.requestSeq}`,
    r.status,
    `${r.recorded.finish ?? '-'} -> ${r.rerun?.finish ?? '-'}`,
    r.textSimilarity === null ? '-' : r.textSimilarity.toFixed(2),
    `${tokens(r.recorded.tokens)} -> ${tokens(r.rerun?.tokens ?? null)}`,
    `${ms(r.recorded.latencyMs)} -> ${ms(r.rerun?.latencyMs)}`,
    r.reason === null ? '' : oneLine(r.reason, REASON_MAX),
  ];
}

function printReport(io: Io, report: EvaluationReport): void {
  const { start, summary: s } = report;
  const numbers = new Map(start.requestIds.map((id, i) => [id, i + 1]));
  const rows = [
    ['n', 'entry', 'request', 'status', 'finish (recorded -> now)', 'similarity', 'tokens in/out/cached', 'latency ms', 'why'],
    ...report.requests.map((r) => row(r, numbers.get(r.entryId) ?? 0)),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows)
    io.out(
      `${r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd()}\n`,
    );
  io.out(
    `\n${report.sessionId} against ${start.model.vendor}/${start.model.id}: ${s.requests} requests: ${s.agree} agree, ${s.diverged} diverged, ${s.failed} failed`,
  );
  io.out(`${s.notEvaluated > 0 ? ` (${s.notEvaluated} not evaluated)` : ''}\n`);
  if (s.firstDivergence !== null) {
    const d = s.firstDivergence;
    io.out(`first divergence: #${d.entryId} (${d.turnId}/${d.requestSeq}): ${oneLine(d.reason, REASON_MAX)}\n`);
  }
  const t = s.tokens.delta;
  io.out(`tokens (re-run - recorded, ${s.tokens.requests} requests): input ${signed(t.input)}, output ${signed(t.output)}, cached ${signed(t.cached)}\n`);
  io.out(`latency (re-run - recorded, ${s.latencyMs.requests} requests): ${signed(s.latencyMs.delta)} ms\n`);
  if (s.stopped !== null) {
    const why =
      s.stopped.reason === 'model_failed'
        ? `the model failed at #${s.stopped.entryId}: ${s.stopped.message}`
        : s.stopped.reason === 'budget'
          ? `the budget of ${s.stopped.maxRequests} requests`
          : 'cancelled';
    io.out(`stopped: ${why}\n`);
  }
  io.out(report.evalSessionId === null ? 'not recorded (--no-record)\n' : `recorded as session ${report.evalSessionId}\n`);
}
