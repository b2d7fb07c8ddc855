import { RERUN_REQUEST } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ModelRequest } from '../../../src/agent/model/modelPort';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { RecordedRequests } from '../../../src/rerun/rebuildRequest';
import { continueRerun, rerunRequest } from '../../../src/rerun/rerun';
import { verifySession } from '../../../src/rerun/verify';
import { mergeFork } from '../../../src/store/forks';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { ForkRefusedError } from '../../../src/tape/fork';
import { replayedFromOf } from '../../../src/tape/evaluation/rerunEntries';
import { recordTurns, tapeOf } from './recordedTurns';

const SESSION = 'src';
const READ: ScriptedStep[] = [{ text: 'Reading.' }, { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } }];
const ANSWER: ScriptedStep[] = [{ text: 'It says to build with esbuild.' }];
const signal = () => new AbortController().signal;

/** One turn the real agent records: it reads a file, then answers (two requests). */
const record = (dir: string) => recordTurns(dir, SESSION, [{ text: 'Read notes.md', steps: [READ, ANSWER] }]);

describe('re-running a request (rerunRequest, continueRerun)', function () {
  this.timeout(30_000);
  let dir: string;
  let raws: RawEntry[];
  let sent: ModelRequest[];
  let tape: OpenTape;
  let first: number;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-rerun-'));
    ({ raws, sent } = await record(dir));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    tape = await tapeOf(raws);
    [first] = new RecordedRequests(tape, SESSION).requestIds();
  });

  it('a re-run left waiting at its call is continued later: the call is answered from the source, the next request is the recorded one; an ended re-run is not continued', async () => {
    const waiting = await rerunRequest(tape, new ScriptedModel([READ]), { sessionId: SESSION, entryId: first }, { signal: signal(), forkId: 'w' });
    assert.deepStrictEqual([waiting.outcome, waiting.steps[0].calls.map((c) => c.result)], ['recorded', ['waiting']]);
    const model = new ScriptedModel([ANSWER]);
    const done = await continueRerun(tape, model, waiting.forkSessionId, { signal: signal(), continue: {} });
    assert.strictEqual(done.outcome, 'answer');
    assert.deepStrictEqual(model.requests, [sent[1]], 'the second request is the one the recording sent');
    const results = tape.store.entries(waiting.forkSessionId, { kind: 'tool_result' });
    assert.deepStrictEqual(
      results.map((e) => replayedFromOf(e)?.sessionId),
      [SESSION],
    );
    await assert.rejects(continueRerun(tape, new ScriptedModel([]), waiting.forkSessionId, { signal: signal(), continue: {} }), ForkRefusedError);
    await assert.rejects(continueRerun(tape, new ScriptedModel([]), SESSION, { signal: signal(), continue: {} }), /not a re-run fork/);
  });

  it('a re-run left waiting survives a reopen: the crash repair leaves its calls for the continue, and it is never merged into its source', async () => {
    const file = path.join(dir, 'reopened.tape.sqlite');
    fs.writeFileSync(file, tape.store.snapshotBytes());
    let store = await TapeStore.open(file);
    const waiting = await rerunRequest(
      new OpenTape(store),
      new ScriptedModel([READ]),
      { sessionId: SESSION, entryId: first },
      { signal: signal(), forkId: 'r' },
    );
    assert.strictEqual(waiting.outcome, 'recorded');
    const before = store.rawEntries(waiting.forkSessionId);
    await store.close();
    store = await TapeStore.open(file);
    try {
      assert.strictEqual(store.openReport.repairedToolCalls, 0);
      assert.deepStrictEqual(store.rawEntries(waiting.forkSessionId), before, 'no interrupted result was written into the fork');
      await assert.rejects(
        mergeFork(store, waiting.forkSessionId),
        (e: Error) => e instanceof ForkRefusedError && /re-runs request #\d+ of "src".*never merged/.test(e.message),
      );
      const done = await continueRerun(new OpenTape(store), new ScriptedModel([ANSWER]), waiting.forkSessionId, { signal: signal(), continue: {} });
      assert.strictEqual(done.outcome, 'answer');
      await assert.rejects(mergeFork(store, waiting.forkSessionId), /never merged/, 'an ended re-run neither');
      assert.deepStrictEqual(store.rawEntries(SESSION), raws, 'the source is unchanged');
    } finally {
      await store.close();
    }
  });

  it('a varied system prompt stays in force for the requests a continued re-run assembles', async () => {
    const model = new ScriptedModel([READ, ANSWER]);
    const r = await rerunRequest(
      tape,
      model,
      { sessionId: SESSION, entryId: first, variation: { systemPrompt: 'Be brief.' } },
      { signal: signal(), continue: {} },
    );
    assert.strictEqual(r.outcome, 'answer');
    assert.deepStrictEqual(
      model.requests.map((q) => q.messages[0].content),
      ['Be brief.', 'Be brief.'],
    );
    assert.deepStrictEqual(model.requests[1].messages.slice(1), sent[1].messages.slice(1));
    // Verification rebuilds the fork's requests under the same variation: both match.
    const report = verifySession(tape, r.forkSessionId);
    assert.deepStrictEqual(
      report.requests.map((q) => q.status),
      ['match', 'match'],
      JSON.stringify(report.requests),
    );
    assert.strictEqual(report.ok, true);
    // Without the variation they would not: the recorded prompt is not the one the fork sent.
    const [rerunEvent] = tape.store.entries(r.forkSessionId, { kind: 'event', name: RERUN_REQUEST });
    const unvaried = await tapeOf(
      tape.store
        .rawEntries(null)
        .map((e) =>
          e.sessionId === r.forkSessionId && e.entryId === rerunEvent.entryId ? { ...e, payload: e.payload.replace('"systemPrompt":"Be brief."', '') } : e,
        ),
    );
    assert.deepStrictEqual(
      verifySession(unvaried, r.forkSessionId).requests.map((q) => q.status),
      ['mismatch', 'mismatch'],
    );
  });

  it('a drop that names no entry of the session cannot be rebuilt, and verification says why', async () => {
    const r = await rerunRequest(tape, new ScriptedModel([ANSWER]), { sessionId: SESSION, entryId: first }, { signal: signal() });
    const [rerunEvent] = tape.store.entries(r.forkSessionId, { kind: 'event', name: RERUN_REQUEST });
    const bad = await tapeOf(
      tape.store
        .rawEntries(null)
        .map((e) =>
          e.sessionId === r.forkSessionId && e.entryId === rerunEvent.entryId
            ? { ...e, payload: e.payload.replace('"variation":{}', '"variation":{"drop":[999]}') }
            : e,
        ),
    );
    const [request] = verifySession(bad, r.forkSessionId).requests;
    assert.deepStrictEqual(
      [request.status, (request as { reason?: string }).reason],
      ['cannot_rebuild', 'cannot drop entry #999: the session has no such entry'],
    );
  });

  it('bounded by the round limit, and cancellable', async () => {
    const limited = new ScriptedModel([READ, ANSWER]);
    const r = await rerunRequest(tape, limited, { sessionId: SESSION, entryId: first }, { signal: signal(), continue: { maxRounds: 1 } });
    assert.deepStrictEqual([r.outcome, limited.requests.length], ['round_limit', 1]);

    const controller = new AbortController();
    controller.abort();
    const c = await rerunRequest(tape, new ScriptedModel([READ]), { sessionId: SESSION, entryId: first }, { signal: controller.signal, continue: {} });
    assert.strictEqual(c.outcome, 'cancelled');
    const [end] = tape.store.entries(c.forkSessionId, { kind: 'event', name: 'turn/end' });
    assert.strictEqual((end.payload.data as { outcome: string }).outcome, 'cancelled');
    assert.deepStrictEqual(tape.store.rawEntries(SESSION), raws, 'the source is never written to');
  });
});
