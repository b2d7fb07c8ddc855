import { VIEW_ASSEMBLED } from '../../tape/entryNames';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { OpenTape } from '../../agent/session/openTape';
import { judge, DEFAULT_TEXT_THRESHOLD } from '../../rerun/agreement';
import { evaluateSession } from '../../rerun/evaluate';
import { RecordedRequests } from '../../rerun/rebuildRequest';
import { RecordedResponses } from '../../rerun/recordedResponse';
import { continueRerun, rerunRequest, type RerunResult } from '../../rerun/rerun';
import { variationSchema } from '../../rerun/variation';
import { manifestOfEntry } from '../../tape/manifest';
import { abortSignalOf } from '../cancellation';
import type { Deps } from '../deps';
import { LmModelPort } from '../model/lmModelPort';
import { pickSession } from '../replay/verifyCommand';
import { reportingCommands } from '../sessionCommands';
import { modelChoice, pickChatModel, pickVariation } from './pickers';
import { differenceSummary, responseDocument, type ResponseFacts } from './responseDocument';
import { ResponseDiffs } from './responseDiff';

/** A session id (the inspector, the palette) or a row of the sessions view. */
const sessionArg = z.optional(
  z.union([
    z.string().check(z.minLength(1)),
    z.pipe(
      z.looseObject({ sessionId: z.string() }),
      z.transform((r) => r.sessionId),
    ),
  ]),
);
const entryArg = z.optional(z.int().check(z.positive()));
/** What a script or a test gives instead of picking: the model, and for a re-run the variation. */
const givenArg = z.optional(z.object({ model: z.optional(modelChoice), variation: z.optional(z.unknown()) }));

/** What Re-run returns (for scripts and tests): the fork, whether the rebuilt prompt was the recorded one, the answer and how it compares. */
export interface RerunSummary {
  forkSessionId: string;
  promptHashMatches: boolean;
  status: 'ok' | 'failed' | 'cancelled';
  verdict: 'agree' | 'diverged' | null;
  text: string;
  toolCalls: { name: string; arguments: unknown }[];
  summary: string;
}

const TITLE_RERUN = 'Tape: Re-run Request';
const TITLE_EVAL = 'Tape: Evaluate Session with a Model';

/**
 * Re-run and evaluate in VS Code, over the domain's `rerunRequest` / `continueRerun` and
 * `evaluateSession` with any model VS Code offers (through `LmModelPort`, as `@tape` uses it):
 * pickers for the model and the variation, a cancellable progress notification, the re-run beside
 * the recorded response in the diff editor, and the evaluation's report in the inspector.
 */
export function registerRerun(deps: Pick<Deps, 'log' | 'tape' | 'sessions' | 'panels'>): vscode.Disposable {
  const run = reportingCommands(deps.log);
  const diffs = new ResponseDiffs();

  /** The workspace tape, writable: a re-run records a fork, an evaluation a session. */
  const writableTape = async (): Promise<OpenTape> => {
    const ws = await deps.tape.open();
    if (ws.state.mode === 'readOnly') throw new Error(`the tape is read-only in this window (${ws.state.reason})`);
    return deps.tape.tapeOf(ws);
  };

  const continueInFork = async (tape: OpenTape, model: vscode.LanguageModelChat, forkSessionId: string): Promise<RerunResult> => {
    const result = await withCancel(`Continuing the re-run in ${forkSessionId}…`, (signal) =>
      continueRerun(tape, new LmModelPort(model), forkSessionId, { signal, continue: {} }),
    );
    const words = result.divergence === null ? result.outcome : `diverged at a call of request ${result.divergence.requestSeq}`;
    deps.log.info(`re-run continued in ${forkSessionId}: ${words}`);
    void vscode.window.showInformationMessage(`Agent Tape: the re-run went on in its fork with the recorded tool results: ${words}.`);
    await deps.panels.show(forkSessionId);
    return result;
  };

  return vscode.Disposable.from(
    diffs,
    run('agentTape.rerunRequest', async (sessionGiven?: unknown, entryGiven?: unknown, given?: unknown): Promise<RerunSummary | undefined> => {
      const tape = await writableTape();
      const sessionId =
        sessionArg.parse(sessionGiven) ?? (await pickSession(tape.store, deps.sessions.current(tape.store), TITLE_RERUN, 'Session whose request to re-run'));
      if (sessionId === undefined) return undefined;
      const options = givenArg.parse(given);
      const entryId = entryArg.parse(entryGiven) ?? (await pickRequest(tape, sessionId));
      if (entryId === undefined) return undefined;
      const requests = new RecordedRequests(tape, sessionId);
      const base = requests.rebuild(entryId);
      const model = await pickChatModel(TITLE_RERUN, base.recorded.model, options?.model);
      if (model === undefined) return undefined;
      const variation = options?.variation !== undefined ? variationSchema.parse(options.variation) : await pickVariation(TITLE_RERUN, base, tape.reader);
      if (variation === undefined) return undefined;
      const result = await withCancel(`Re-running request #${entryId} with ${model.name}…`, (signal) =>
        rerunRequest(tape, new LmModelPort(model), { sessionId, entryId, variation }, { signal }),
      );
      const response = result.steps[0]?.response;
      if (response === undefined) throw new Error(`the re-run of #${entryId} recorded no response`);
      const recorded = new RecordedResponses(requests.replay).of(entryId, base.recorded.turnId, base.recorded.requestSeq);
      const finish = response.toolCalls.length > 0 ? 'tool_calls' : 'text';
      const toolCalls = response.toolCalls.map((c) => ({ name: c.name, arguments: c.valid ? c.arguments : c.rawArguments }));
      const judgement = response.status === 'ok' ? judge(recorded, { finish, text: response.text, toolCalls }, DEFAULT_TEXT_THRESHOLD) : null;
      const was: ResponseFacts = {
        ...recorded.facts,
        status: 'recorded',
        text: recorded.text,
        model: `${base.recorded.model.vendor}/${base.recorded.model.id}`,
      };
      const now: ResponseFacts = {
        status: response.status,
        finish: response.status === 'ok' ? finish : null,
        text: response.text,
        toolCalls,
        tokens: response.usage && { input: response.usage.inputTokens, output: response.usage.outputTokens, cached: response.usage.cachedInputTokens ?? 0 },
        latencyMs: response.latencyMs,
        model: `${model.vendor}/${model.id}`,
        notes: [
          ...(response.error === null ? [] : [`${response.error.failureClass}: ${response.error.message}`]),
          ...(result.rebuilt.promptHashMatches ? [] : ['The prompt sent is not the recorded one (the variation changed it).']),
          ...result.rebuilt.notes,
          `Recorded in the fork ${result.forkSessionId}.`,
        ],
      };
      const title = `${sessionId} #${entryId}`;
      await diffs.show(title, responseDocument(`Recorded: ${title}`, was), responseDocument(`Re-run: ${title}`, now));
      const summary = differenceSummary(judgement, was, now);
      deps.log.info(`re-run of ${title} with ${now.model} into ${result.forkSessionId}: ${summary}`);
      void offerNext(summary, response.status === 'ok' && response.toolCalls.length > 0).then(async (choice) => {
        if (choice === 'continue') await continueInFork(tape, model, result.forkSessionId);
        else if (choice === 'inspect') await deps.panels.show(result.forkSessionId);
      });
      return {
        forkSessionId: result.forkSessionId,
        promptHashMatches: result.rebuilt.promptHashMatches,
        status: response.status,
        verdict: judgement?.status ?? null,
        text: response.text,
        toolCalls,
        summary,
      };
    }),
    run('agentTape.continueRerun', async (forkGiven?: unknown, given?: unknown) => {
      const tape = await writableTape();
      const forkSessionId = z.string().check(z.minLength(1)).parse(forkGiven);
      const model = await pickChatModel(TITLE_RERUN, null, givenArg.parse(given)?.model);
      if (model === undefined) return undefined;
      const result = await continueInFork(tape, model, forkSessionId);
      return { outcome: result.outcome, divergence: result.divergence, steps: result.steps.length };
    }),
    run('agentTape.evaluateSession', async (sessionGiven?: unknown, given?: unknown) => {
      const tape = await writableTape();
      const sessionId = sessionArg.parse(sessionGiven) ?? (await pickSession(tape.store, deps.sessions.current(tape.store), TITLE_EVAL, 'Session to evaluate'));
      if (sessionId === undefined) return undefined;
      const lastRequest = tape.session(sessionId).entries({ kind: 'event', name: VIEW_ASSEMBLED }).at(-1);
      const recordedModel = lastRequest === undefined ? null : manifestOfEntry(lastRequest).model;
      const model = await pickChatModel(TITLE_EVAL, recordedModel, givenArg.parse(given)?.model);
      if (model === undefined) return undefined;
      const report = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Evaluating ${sessionId} with ${model.name}`, cancellable: true },
        async (progress, token) => {
          const abort = abortSignalOf(token);
          try {
            return await evaluateSession(tape, sessionId, new LmModelPort(model), {
              signal: abort.signal,
              onProgress: (p) =>
                progress.report({ increment: 100 / Math.max(1, p.total), message: `${p.done} of ${p.total}: #${p.result.entryId} ${p.result.status}` }),
            });
          } finally {
            abort.dispose();
          }
        },
      );
      const s = report.summary;
      const words = `${s.requests} requests: ${s.agree} agree, ${s.diverged} diverged, ${s.failed} failed${s.notEvaluated > 0 ? `, ${s.notEvaluated} not evaluated` : ''}`;
      deps.log.info(`evaluation of ${sessionId} with ${model.vendor}/${model.id}: ${words} (${report.evalSessionId ?? 'not recorded'})`);
      if (report.evalSessionId !== null) await deps.panels.showEvaluation(sessionId, report.evalSessionId);
      void vscode.window.showInformationMessage(`Agent Tape: evaluated ${sessionId} against ${model.name}: ${words}.`);
      return { evalSessionId: report.evalSessionId, summary: s, requests: report.requests.map((r) => ({ entryId: r.entryId, status: r.status })) };
    }),
  );
}

/** A cancellable progress notification around work that takes an AbortSignal. */
function withCancel<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
    const abort = abortSignalOf(token);
    try {
      return await work(abort.signal);
    } finally {
      abort.dispose();
    }
  });
}

/** The summary, with what can follow: continue (only when the answer called tools), or look at the fork. */
async function offerNext(summary: string, canContinue: boolean): Promise<'continue' | 'inspect' | undefined> {
  const cont = 'Continue in a Fork';
  const inspect = 'Show the Fork';
  const choice = await vscode.window.showInformationMessage(`Agent Tape: the re-run ${summary}.`, ...(canContinue ? [cont] : []), inspect);
  return choice === cont ? 'continue' : choice === inspect ? 'inspect' : undefined;
}

/** The request to re-run: the session's last one first, as the Requests view lists them. */
async function pickRequest(tape: OpenTape, sessionId: string): Promise<number | undefined> {
  const requests = tape.session(sessionId).entries({ kind: 'event', name: VIEW_ASSEMBLED });
  if (requests.length === 0) {
    void vscode.window.showInformationMessage(`Agent Tape: ${sessionId} has no recorded model requests.`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    requests.reverse().map((e) => {
      const m = manifestOfEntry(e);
      return { label: `#${e.entryId}`, description: `${m.turnId} · ${m.requestSeq} · ${m.model.vendor}/${m.model.id}`, entryId: e.entryId };
    }),
    { title: TITLE_RERUN, placeHolder: 'Request to send again' },
  );
  return picked?.entryId;
}
