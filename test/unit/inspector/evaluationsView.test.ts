import * as assert from 'assert';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import { inspectorRequests, type HostToInspector } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import {
  evalRequestEntry,
  evalSessionId,
  evalStartEntry,
  evalSummaryEntry,
  TEXT_SIMILARITY_MEASURE,
  type RequestEvaluation,
} from '../../../src/tape/evaluation/evaluationEntries';
import { message } from './helpers';
import { inspectorSource } from './inspectorSource';

const S = 'chat-s';
const tokens = (input: number, output: number) => ({ input, output, cached: 0 });

/** A request judged: request `entryId`, recorded with the answer at `messageEntryId`, re-run with `rerun` (null: failed). */
function judged(
  entryId: number,
  status: RequestEvaluation['status'],
  messageEntryId: number,
  rerun: { text: string; calls?: string[] } | null,
): RequestEvaluation {
  const calls = (rerun?.calls ?? []).map((name) => ({ name, arguments: { path: 'a.txt' } }));
  return {
    entryId,
    turnId: 't1',
    requestSeq: entryId,
    status,
    reason: status === 'agree' ? null : status === 'failed' ? 'the model failed' : 'tool calls instead of text',
    sent: null,
    recorded: { messageEntryId, finish: 'text', toolCalls: [], tokens: tokens(100, 10), latencyMs: 200 },
    rerun: rerun && {
      finish: calls.length > 0 ? 'tool_calls' : 'text',
      text: rerun.text,
      toolCalls: calls,
      stopReason: 'stop',
      tokens: tokens(110, 12),
      latencyMs: 150,
      attempts: 1,
    },
    finishEqual: status === 'agree',
    toolNamesEqual: status === 'agree',
    toolArgumentsEqual: status === 'agree',
    textSimilarity: rerun === null ? null : status === 'agree' ? 1 : 0,
    error: null,
    notes: [],
  };
}

const start = (evalId: string, requestIds: number[]) =>
  evalStartEntry({
    sourceSessionId: S,
    sourceHeadEntryId: 5,
    evalId,
    model: { vendor: 'test', id: 'scripted' },
    variation: {},
    requestIds,
    maxRequests: null,
    concurrency: 1,
    textThreshold: 0.5,
    similarity: TEXT_SIMILARITY_MEASURE,
  });

/**
 * S: 2 user, 3 assistant "the <b>answer</b>", 4 user, 5 assistant "second". Evaluation e1 (older,
 * finished) agrees at #2 and diverges at #4; e2 (newer) has one result and no summary yet. The
 * results are recorded out of order, as a concurrent evaluation finishes them.
 */
async function tape() {
  const store = await TapeStore.inMemory();
  await store.appendMany(S, [
    message('m1', 'user', 1, 'hi'),
    message('m2', 'assistant', 2, 'the <b>answer</b>'),
    message('m3', 'user', 3, 'more'),
    message('m4', 'assistant', 4, 'second'),
  ]);
  const e1 = evalSessionId(S, 'e1');
  await store.appendMany(e1, [
    { ...start('e1', [2, 4]), createdAt: 1000 },
    evalRequestEntry(judged(4, 'diverged', 5, { text: 'calling a tool', calls: ['read_file'] })),
    evalRequestEntry(judged(2, 'agree', 3, { text: 'the <b>answer</b>' })),
    evalSummaryEntry({
      requests: 2,
      agree: 1,
      diverged: 1,
      failed: 0,
      notEvaluated: 0,
      firstDivergence: { entryId: 4, turnId: 't1', requestSeq: 4, reason: 'tool calls instead of text' },
      tokens: { requests: 2, recorded: tokens(200, 20), rerun: tokens(220, 24), delta: { input: 20, output: 4, cached: 0 } },
      latencyMs: { requests: 2, recorded: 400, rerun: 300, delta: -100 },
      stopped: null,
      modelFailed: false,
    }),
  ]);
  const e2 = evalSessionId(S, 'e2');
  await store.appendMany(e2, [{ ...start('e2', [2, 4]), createdAt: 2000 }, evalRequestEntry(judged(2, 'failed', 3, null))]);
  // Not an evaluation, though its id looks like one: no eval/start.
  await store.appendMany(evalSessionId(S, 'fake'), [message('x', 'user', 1, 'not an evaluation')]);
  return { store, e1, e2 };
}

async function controller(store: TapeStore, sessionId: string) {
  const posted: HostToInspector[] = [];
  const host: InspectorHost = { post: (m) => posted.push(m), copy: () => undefined, command: () => undefined };
  const c = new InspectorController(inspectorSource(store, 'tape', false), host, { sessionId });
  await c.handle({ type: 'ready' });
  let id = 0;
  const ask = async (method: string, params: unknown) => {
    posted.splice(0);
    await c.handle({ type: 'request', id: ++id, method, params });
    const reply = posted.find((m) => m.type === 'reply');
    assert.ok(reply?.type === 'reply' && reply.id === id, JSON.stringify(posted));
    return reply;
  };
  return { c, posted, ask };
}

const okResult = (reply: Extract<HostToInspector, { type: 'reply' }>): unknown => {
  assert.ok(reply.ok, JSON.stringify(reply));
  return reply.result;
};

describe('inspector: evaluations of a session', () => {
  it('lists the evaluation sessions of a session, newest first, with their summaries (an unfinished one counted so far)', async () => {
    const { store, e1, e2 } = await tape();
    const { ask } = await controller(store, S);
    const reply = await ask('evaluations', {});
    assert.ok(reply.ok);
    const list = inspectorRequests.evaluations.reply.parse(reply.result);
    assert.strictEqual(list.sessionId, S);
    assert.deepStrictEqual(
      list.items.map((i) => [i.evalSessionId, i.evalId, i.model, i.complete, i.summary]),
      [
        [e2, 'e2', 'test/scripted', false, { requests: 1, agree: 0, diverged: 0, failed: 1, notEvaluated: 1 }],
        [e1, 'e1', 'test/scripted', true, { requests: 2, agree: 1, diverged: 1, failed: 0, notEvaluated: 0 }],
      ],
    );
  });

  it("a report: rows in the session's order, the summary's deltas, and the first divergence with the recorded text beside the re-run's", async () => {
    const { store, e1 } = await tape();
    const { ask } = await controller(store, S);
    const reply = await ask('evaluation', { evalSessionId: e1 });
    assert.ok(reply.ok, JSON.stringify(reply));
    const { report } = inspectorRequests.evaluation.reply.parse(reply.result);
    assert.deepStrictEqual(
      report.rows.map((r) => [r.entryId, r.status, r.textSimilarity, r.recordedTokens?.input, r.rerunTokens?.input]),
      [
        [2, 'agree', 1, 100, 110],
        [4, 'diverged', 0, 100, 110],
      ],
    );
    assert.deepStrictEqual(report.summary, {
      requests: 2,
      agree: 1,
      diverged: 1,
      failed: 0,
      notEvaluated: 0,
      tokenDelta: { input: 20, output: 4, cached: 0 },
      latencyDeltaMs: -100,
      stopped: null,
    });
    assert.deepStrictEqual(report.firstDivergence, {
      entryId: 4,
      status: 'diverged',
      reason: 'tool calls instead of text',
      recorded: { finish: 'text', text: 'second', toolCalls: [], tokens: tokens(100, 10), latencyMs: 200 },
      rerun: { finish: 'tool_calls', text: 'calling a tool', toolCalls: ['read_file {"path":"a.txt"}'], tokens: tokens(110, 12), latencyMs: 150 },
    });
    assert.strictEqual(report.variation, '{}');
  });

  it('an evaluation session shown itself lists itself; a failed request diverges first with no re-run side', async () => {
    const { store, e2 } = await tape();
    const { ask } = await controller(store, e2);
    const list = inspectorRequests.evaluations.reply.parse(okResult(await ask('evaluations', {}))).items;
    assert.deepStrictEqual(
      list.map((i) => i.evalSessionId),
      [e2],
    );
    const reply = await ask('evaluation', { evalSessionId: e2 });
    assert.ok(reply.ok);
    const { report } = inspectorRequests.evaluation.reply.parse(reply.result);
    assert.strictEqual(report.complete, false);
    assert.deepStrictEqual([report.firstDivergence?.entryId, report.firstDivergence?.status, report.firstDivergence?.rerun], [2, 'failed', null]);
    assert.strictEqual(report.firstDivergence?.recorded.text, 'the <b>answer</b>', "read from the evaluated session's entry, as text");
  });

  it('refuses a report of a session that is not an evaluation of the one shown', async () => {
    const { store, e1 } = await tape();
    await store.appendMany('other', [message('o', 'user', 1, 'other')]);
    const { ask } = await controller(store, 'other');
    const reply = await ask('evaluation', { evalSessionId: e1 });
    assert.ok(!reply.ok);
    assert.match(reply.error, /is not an evaluation of other/);
    const fake = await ask('evaluation', { evalSessionId: evalSessionId(S, 'fake') });
    assert.ok(!fake.ok);
  });

  it('showEvaluation tells the page which report to open, for the session it shows', async () => {
    const { store, e1 } = await tape();
    const { c, posted } = await controller(store, S);
    posted.splice(0);
    c.showEvaluation(e1);
    assert.deepStrictEqual(posted, [{ type: 'showEvaluation', sessionId: S, evalSessionId: e1 }]);
  });

  it('an evaluation shown while the page was discarded (a hidden panel) opens once the page is ready again', async () => {
    const { store, e1 } = await tape();
    const { c, posted } = await controller(store, S);
    c.pageUnloaded();
    posted.splice(0);
    c.showEvaluation(e1);
    assert.strictEqual(posted.length, 0, 'nothing goes to a page that is not there');
    await c.handle({ type: 'ready' });
    assert.deepStrictEqual(
      posted.map((m) => m.type),
      ['source', 'transcript', 'usage', 'showEvaluation'],
    );
    assert.deepStrictEqual(posted.at(-1), { type: 'showEvaluation', sessionId: S, evalSessionId: e1 });
  });
});
