import { EVAL_REQUEST, EVAL_START, EVAL_SUMMARY } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import type { ModelEvent, ModelPort, ModelRequest } from '../../../src/agent/model/modelPort';
import { ProviderError } from '../../../src/agent/model/providerError';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { judge } from '../../../src/rerun/agreement';
import { EvaluationError, evaluateSession, type EvaluateOptions } from '../../../src/rerun/evaluate';
import { RebuildError } from '../../../src/rerun/rebuildError';
import { RecordedRequests } from '../../../src/rerun/rebuildRequest';
import { textSimilarity } from '../../../src/rerun/textSimilarity';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { evaluationSessionsOf, readEvaluation } from '../../../src/tape/evaluation/evaluationReport';

const SESSION = 'evaluate-me';
const FAILED = 'failed-once';

type Answer = ScriptedStep[];
const READ: Answer = [
  { text: 'Reading.' },
  { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } },
  { usage: { inputTokens: 500, outputTokens: 9 } },
];
const READ_ANSWER: Answer = [{ text: 'It says to build with esbuild.' }, { usage: { inputTokens: 600, outputTokens: 8, cachedInputTokens: 400 } }];
const LIST: Answer = [{ toolCall: { id: 'c2', name: 'list_dir', arguments: { path: '.', depth: 1 } } }];
const LIST_ANSWER: Answer = [{ text: 'One file.' }];
const RECORDED = [READ, READ_ANSWER, LIST, LIST_ANSWER];

/**
 * A model that answers each request by what it was sent, not by the order it is asked in (so an
 * evaluation with more than one request in flight is judged the same): `answers` maps a request
 * (its messages as JSON) to the steps it streams; it records what it was sent.
 */
function answering(answers: Map<string, Answer>): ModelPort & { requests: ModelRequest[] } {
  const inner = new ScriptedModel([]);
  const requests: ModelRequest[] = [];
  return {
    info: { id: 'judge-model', vendor: 'test', contextWindow: 32_000, maxOutput: 4_000 },
    countTokens: (input) => inner.countTokens(input),
    requests,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      requests.push(request);
      const steps = answers.get(JSON.stringify(request.messages));
      // Not transient and not a refusal of every request: that request fails, the evaluation goes on.
      if (steps === undefined) throw new ProviderError('context_too_long', { detail: 'no answer scripted for this request' });
      yield* new ScriptedModel([steps]).stream(request, signal);
    },
  };
}

describe('evaluating a session (src/rerun/evaluate.ts)', function () {
  this.timeout(30_000);
  let dir: string;
  let store: TapeStore;
  let tape: OpenTape;
  let sent: ModelRequest[];
  let ids: number[];
  let original: RawEntry[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-evaluate-'));
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'notes.md'), 'Build with esbuild.\n');
    store = await TapeStore.open(path.join(dir, 'eval.tape.sqlite'));
    tape = new OpenTape(store);
    sent = [];
    const turn = async (sessionId: string, text: string, responses: Answer[]) => {
      const model = new ScriptedModel(responses);
      await new AgentSession({
        tape,
        sessionId,
        model,
        workspace: ws,
        permissions: { edits: false, commands: false },
        environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
      }).runTurn(text, { signal: new AbortController().signal });
      if (sessionId === SESSION) sent.push(...model.requests);
    };
    await turn(SESSION, 'Read notes.md', [READ, READ_ANSWER]);
    await turn(SESSION, 'List the files', [LIST, LIST_ANSWER]);
    await turn(FAILED, 'Answer briefly', [[{ error: new ProviderError('context_too_long') }]]);
    ids = new RecordedRequests(tape, SESSION).requestIds();
    assert.strictEqual(ids.length, 4);
    original = store.rawEntries(SESSION);
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const byRequest = (answers: readonly Answer[], requests: readonly ModelRequest[] = sent) =>
    new Map(requests.map((r, i) => [JSON.stringify(r.messages), answers[i]] as const));
  const sessions = () => store.sessions().map((s) => s.sessionId);
  let n = 0;
  const run = (model: ModelPort, options: EvaluateOptions = {}) => evaluateSession(tape, SESSION, model, { evalId: `t${++n}`, ...options });

  it('the same answers: every request agrees, each is sent exactly as recorded, and the evaluation reads back from its session as the report', async () => {
    const model = answering(byRequest(RECORDED));
    const progress: string[] = [];
    const report = await run(model, { onProgress: (p) => progress.push(`${p.done}/${p.total} #${p.result.entryId}`) });
    assert.deepStrictEqual(model.requests, sent);
    assert.deepStrictEqual(
      report.requests.map((r) => [r.entryId, r.status, r.recorded.finish, r.rerun?.finish, r.sent?.promptHashMatches]),
      ids.map((id, i) => [id, 'agree', i % 2 ? 'text' : 'tool_calls', i % 2 ? 'text' : 'tool_calls', true]),
    );
    assert.deepStrictEqual(
      progress,
      ids.map((id, i) => `${i + 1}/4 #${id}`),
    );
    assert.deepStrictEqual(report.requests[0].recorded.toolCalls, [{ name: 'read_file', arguments: { path: 'notes.md' } }]);
    assert.deepStrictEqual(report.requests[1].recorded.tokens, { input: 600, output: 8, cached: 400 });
    assert.deepStrictEqual([report.summary.tokens.requests, report.summary.tokens.delta], [2, { input: 0, output: 0, cached: 0 }]);
    assert.strictEqual(report.summary.latencyMs.requests, 4);

    const evalSession = report.evalSessionId!;
    assert.strictEqual(evalSession, `${SESSION}::eval::t${n}`);
    assert.deepStrictEqual(
      store.entries(evalSession).map((e) => e.name),
      ['session/start', EVAL_START, EVAL_REQUEST, EVAL_REQUEST, EVAL_REQUEST, EVAL_REQUEST, EVAL_SUMMARY],
    );
    assert.deepStrictEqual(JSON.parse(JSON.stringify(readEvaluation(store, evalSession))), JSON.parse(JSON.stringify(report)));
    assert.ok(evaluationSessionsOf(sessions(), store, SESSION).includes(evalSession));
    assert.deepStrictEqual(evaluationSessionsOf(sessions(), store, FAILED), []);
    assert.deepStrictEqual(store.rawEntries(SESSION), original, 'the evaluated session is unchanged');
  });

  it('more requests in flight give the same judgements, in the session order', async () => {
    const answers = [LIST, READ_ANSWER, READ, LIST_ANSWER];
    const one = await run(answering(byRequest(answers)), { record: false });
    const three = await run(answering(byRequest(answers)), { record: false, concurrency: 3 });
    assert.deepStrictEqual(
      three.requests.map((r) => [r.entryId, r.status, r.reason]),
      one.requests.map((r) => [r.entryId, r.status, r.reason]),
    );
    assert.deepStrictEqual(
      one.requests.map((r) => r.status),
      ['diverged', 'agree', 'diverged', 'agree'],
    );
    assert.deepStrictEqual(one.summary.firstDivergence?.entryId, ids[0]);
    assert.strictEqual(one.summary.firstDivergence?.reason, 'called list_dir, recorded read_file');
    assert.strictEqual(one.requests[2].reason, 'called read_file, recorded list_dir');
  });

  it('the same tool with other arguments diverges; text answers agree at or above the threshold only', async () => {
    const otherPath: Answer = [{ toolCall: { id: 'q', name: 'read_file', arguments: { path: 'README.md' } } }];
    const reworded: Answer = [{ text: 'It says: build it with esbuild.' }];
    const report = await run(answering(byRequest([otherPath, reworded, LIST, LIST_ANSWER])), { record: false });
    assert.match(report.requests[0].reason ?? '', /^call 1 \(read_file\) has other arguments: \{"path":"README\.md"\}, recorded \{"path":"notes\.md"\}$/);
    assert.deepStrictEqual([report.requests[0].toolNamesEqual, report.requests[0].toolArgumentsEqual], [true, false]);
    assert.strictEqual(report.requests[1].status, 'agree');
    assert.strictEqual(report.requests[1].textSimilarity, 5 / 7);
    const strict = await run(answering(byRequest([READ, reworded, LIST, LIST_ANSWER])), { record: false, textThreshold: 0.9 });
    assert.deepStrictEqual(
      strict.requests.map((r) => r.status),
      ['agree', 'diverged', 'agree', 'agree'],
    );
    assert.strictEqual(strict.requests[1].reason, 'text similarity 0.71 is below 0.9');
  });

  it('a request budget sends only the first requests; the rest are reported as not evaluated', async () => {
    const model = answering(byRequest(RECORDED));
    const report = await run(model, { maxRequests: 2 });
    assert.strictEqual(model.requests.length, 2);
    assert.deepStrictEqual([report.summary.requests, report.summary.notEvaluated, report.summary.stopped], [2, 2, { reason: 'budget', maxRequests: 2 }]);
    assert.deepStrictEqual(readEvaluation(store, report.evalSessionId!).summary, report.summary);
  });

  it('cancelled: the requests judged are recorded with a summary that says so, nothing more is sent', async () => {
    const controller = new AbortController();
    const model = answering(byRequest(RECORDED));
    const report = await run(model, { signal: controller.signal, onProgress: () => controller.abort() });
    assert.strictEqual(model.requests.length, 1);
    assert.deepStrictEqual([report.summary.requests, report.summary.notEvaluated, report.summary.stopped], [1, 3, { reason: 'cancelled' }]);
    const read = readEvaluation(store, report.evalSessionId!);
    assert.deepStrictEqual([read.complete, read.requests.length, read.summary.stopped], [true, 1, { reason: 'cancelled' }]);
  });

  it('a request the variation cannot apply to fails without being sent; the others are sent varied', async () => {
    // The second turn's user message is in the context of requests 3 and 4 only.
    const user2 = store.entries(SESSION, { kind: 'message' }).filter((e) => e.payload.role === 'user')[1].entryId;
    const model = answering(new Map());
    const report = await run(model, { record: false, variation: { drop: [user2] } });
    assert.deepStrictEqual(
      report.requests.slice(0, 2).map((r) => [r.status, r.error?.source, r.error?.code, r.sent]),
      [
        ['failed', 'rebuild', 'invalid_variation', null],
        ['failed', 'rebuild', 'invalid_variation', null],
      ],
    );
    assert.strictEqual(model.requests.length, 2, 'requests 3 and 4 were sent');
    assert.ok(model.requests.every((r) => !r.messages.some((m) => m.content === 'List the files')));
    assert.deepStrictEqual(
      report.requests.slice(2).map((r) => [r.status, r.error?.source, r.sent?.promptHashMatches]),
      [
        ['failed', 'model', false],
        ['failed', 'model', false],
      ],
    );
    assert.strictEqual(report.summary.modelFailed, true, 'no request got an answer');
  });

  it('a recorded request that failed has no answer to agree with: an answer now diverges', async () => {
    const [request] = new RecordedRequests(tape, FAILED).requestIds();
    const model = answering(new Map([[JSON.stringify(new RecordedRequests(tape, FAILED).rebuild(request).request.messages), [{ text: 'Short.' }]]]));
    const report = await evaluateSession(tape, FAILED, model, { record: false });
    assert.deepStrictEqual(
      report.requests.map((r) => [r.status, r.recorded.finish, r.recorded.messageEntryId, r.reason]),
      [['diverged', null, null, 'finished with text; the recorded request has no answer (it failed or was cancelled)']],
    );
  });

  it('bad input is refused before anything is sent or written', async () => {
    const before = sessions();
    const model = answering(byRequest(RECORDED));
    const refused = (code: string) => (e: unknown) => e instanceof RebuildError && e.code === code;
    await assert.rejects(evaluateSession(tape, 'nope', model), refused('unknown_session'));
    await assert.rejects(run(model, { entryIds: [ids[0], 1] }), refused('not_a_request'));
    await assert.rejects(run(model, { variation: { systemPrompt: 3 } as never }), refused('invalid_variation'));
    await assert.rejects(run(model, { concurrency: 0 }), EvaluationError);
    await assert.rejects(run(model, { textThreshold: 2 }), EvaluationError);
    await assert.rejects(run(model, { evalId: 'no spaces' }), EvaluationError);
    assert.strictEqual(model.requests.length, 0);
    assert.deepStrictEqual(sessions(), before);
  });

  it('an evaluation id is used once', async () => {
    const model = answering(byRequest(RECORDED));
    await evaluateSession(tape, SESSION, model, { evalId: 'once', maxRequests: 1 });
    await assert.rejects(evaluateSession(tape, SESSION, model, { evalId: 'once' }), /already has an evaluation session evaluate-me::eval::once/);
  });
});

describe('the agreement rule and the text similarity', () => {
  it('textSimilarity: the weighted Jaccard index of word multisets, case and order ignored', () => {
    assert.strictEqual(textSimilarity('', ''), 1);
    assert.strictEqual(textSimilarity('Hello world', 'world, HELLO!'), 1);
    assert.strictEqual(textSimilarity('a b', 'c d'), 0);
    assert.strictEqual(textSimilarity('a a b', 'a b b'), 2 / 4);
    assert.strictEqual(textSimilarity('数据库', '数据'), 2 / 3);
    assert.strictEqual(textSimilarity('x', ''), 0);
  });

  const recorded = (finish: 'text' | 'tool_calls' | null, text: string, toolCalls: { name: string; arguments: unknown }[] = []) => ({
    facts: { messageEntryId: 1, finish, toolCalls, tokens: null, latencyMs: null },
    text,
  });

  it('tool calls: names in order and canonical arguments; ids and the text beside them do not count', () => {
    const was = recorded('tool_calls', 'Reading.', [{ name: 'read_file', arguments: { path: 'a', range: { to: 2, from: 1 } } }]);
    const same = judge(
      was,
      { finish: 'tool_calls', text: 'Something else.', toolCalls: [{ name: 'read_file', arguments: { range: { from: 1, to: 2 }, path: 'a' } }] },
      0.5,
    );
    assert.deepStrictEqual([same.status, same.reason], ['agree', null]);
    const two = judge(was, { finish: 'tool_calls', text: '', toolCalls: [...was.facts.toolCalls, { name: 'list_dir', arguments: {} }] }, 0.5);
    assert.deepStrictEqual([two.status, two.reason], ['diverged', 'called read_file, list_dir, recorded read_file']);
    const text = judge(was, { finish: 'text', text: 'Reading.', toolCalls: [] }, 0.5);
    assert.deepStrictEqual([text.status, text.reason, text.finishEqual], ['diverged', 'finished with text, recorded tool calls', false]);
  });
});
