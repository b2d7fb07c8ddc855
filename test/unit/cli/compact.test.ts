import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OpenTape } from '../../../src/agent/session/openTape';
import { ScriptedModel } from '../../../src/agent/model/scriptedModel';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { manifestOfEntry } from '../../../src/tape/manifest';
import { fakeServerPerTest, sessionEntries } from '../../support/agentCliFixture';
import { runCli } from '../../support/cliProcess';
import type { FakeReply } from '../../support/fakeOpenAiServer';
import { buildCli } from './build';

const SESSION = 's1';
const SUMMARY = JSON.stringify({ goal: 'Fix the build', decisions: ['use esbuild'], filesTouched: ['esbuild.mjs'], openWork: ['run the tests'] });

describe('agent-tape compact, and auto-compaction that fails', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;

  before(buildCli);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-compact-'));
    tape = path.join(dir, 'agent.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const startServer = fakeServerPerTest();

  const serve = async (replies: FakeReply[]): Promise<string> => (await startServer(replies)).baseURL;

  async function seed(): Promise<void> {
    const s = await TapeStore.open(tape);
    await s.append(SESSION, {
      kind: 'message',
      name: 'message/user',
      payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: 'Fix the build' },
    });
    await s.append(SESSION, {
      kind: 'message',
      name: 'message/assistant',
      payload: { messageId: 'a1', role: 'assistant', status: 'sent', orderSeq: 2, content: 'Switched to esbuild.' },
    });
    await s.close();
  }

  const entries = (): Promise<Entry[]> => sessionEntries(tape, SESSION);

  it('appends a compaction/manual anchor, prints its entry id, and the context starts from it', async () => {
    await seed();
    const baseURL = await serve([{ stream: [{ text: SUMMARY }] }]);
    const r = await runCli(['compact', tape, '--session', SESSION, '--base-url', baseURL, '--model', 'fake']);
    assert.deepStrictEqual([r.code, r.out, r.err], [0, '4\n', '']);
    const anchor = (await entries())[3];
    assert.strictEqual(anchor.name, 'compaction/manual');
    assert.strictEqual((anchor.payload.state as Record<string, unknown>).cursorOrderSeq, 2);
    const ctx = JSON.parse((await runCli(['context', tape, '--session', SESSION, '--json'])).out) as { anchorEntryId: number };
    assert.strictEqual(ctx.anchorEntryId, 4);
  });

  it('a failing summary request: exit 1, the failure on the tape, no anchor; a missing session exits 2', async () => {
    await seed();
    const baseURL = await serve([{ status: 500 }]);
    const r = await runCli(['compact', tape, '--session', SESSION, '--base-url', baseURL, '--model', 'fake']);
    assert.strictEqual(r.code, 1);
    assert.match(r.err, /compaction \(manual\) failed: The model server failed \(HTTP 500\)/);
    const all = await entries();
    assert.deepStrictEqual(
      all.map((e) => e.name),
      ['session/start', 'message/user', 'message/assistant', 'error/provider'],
    );
    const missing = await runCli(['compact', tape, '--session', 'nope', '--base-url', baseURL, '--model', 'fake']);
    assert.strictEqual(missing.code, 2);
    assert.match(missing.err, /no session "nope"/);
  });

  it('a failing auto-compaction: the turn goes on (budget trimming), an error event and an error entry, no anchor', async () => {
    const long = (turn: number): FakeReply => ({ stream: [{ text: `Answer ${turn}: ${'the build uses esbuild and the tests use mocha; '.repeat(25)}` }] });
    const baseURL = await serve([long(1), long(2), { status: 500 }, long(3)]);
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    const runs = [];
    // The window is sized so that only the third turn's request (tool schemas included) passes the compaction share.
    for (let turn = 1; turn <= 3; turn++) {
      runs.push(
        await runCli([
          'run',
          tape,
          '--session',
          SESSION,
          '--base-url',
          baseURL,
          '--model',
          'fake',
          '--workspace',
          ws,
          '--context-window',
          '4400',
          '--json',
          `Question ${turn}`,
        ]),
      );
    }
    assert.deepStrictEqual(
      runs.map((r) => r.code),
      [0, 0, 0],
    );
    const events = runs[2].out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepStrictEqual(events[0], {
      type: 'error',
      kind: 'compaction',
      turnId: events[0].turnId,
      requestSeq: 1,
      message: 'compaction (auto) failed: The model server failed (HTTP 500): status 500',
    });
    assert.strictEqual(events[events.length - 1].outcome, 'answer');
    const all = await entries();
    assert.strictEqual(all.filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/')).length, 0);
    const failure = all.filter((e) => e.name === 'error/provider');
    assert.deepStrictEqual(
      failure.map((e) => (e.payload.details as Record<string, unknown>).operation),
      ['compaction'],
    );
    assert.deepStrictEqual(
      all.filter((e) => e.name === 'view/assembled').map((e) => manifestOfEntry(e).anchorEntryId),
      [null, null, null],
    );
  });

  it("a session handle's compact compacts the session for a host", async () => {
    await seed();
    const store = await TapeStore.open(tape);
    try {
      const outcome = await new OpenTape(store).session(SESSION).compact(new ScriptedModel([[{ text: SUMMARY }]]), new AbortController().signal);
      assert.ok('anchor' in outcome);
      assert.strictEqual(outcome.anchor.name, 'compaction/manual');
      assert.match(String((outcome.anchor.payload.state as Record<string, unknown>).summary), /Goal: Fix the build/);
    } finally {
      await store.close();
    }
  });
});
