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

  it('--pin, --summary-file and --undo append one entry each, print its id, and the context and verify follow; exit 2 without a compaction', async () => {
    await seed();
    const none = await runCli(['compact', tape, '--session', SESSION, '--undo']);
    assert.deepStrictEqual([none.code, none.out], [2, '']);
    assert.match(none.err, /nothing to amend in this session: it has no compaction/);
    const baseURL = await serve([{ stream: [{ text: SUMMARY }] }]);
    assert.strictEqual((await runCli(['compact', tape, '--session', SESSION, '--base-url', baseURL, '--model', 'fake'])).code, 0);
    const context = async (): Promise<{ anchorEntryId: number | null; messages: { entryId: number | null; content: string }[] }> =>
      JSON.parse((await runCli(['context', tape, '--session', SESSION, '--json'])).out) as {
        anchorEntryId: number | null;
        messages: { entryId: number | null; content: string }[];
      };
    const before = await entries();

    const pin = await runCli(['compact', tape, '--session', SESSION, '--pin', '3']);
    assert.deepStrictEqual([pin.code, pin.out], [0, '5\n']);
    assert.match(
      pin.err,
      /^compaction\/pin of the compaction at entry 4; the next context starts from the anchor at entry 4: about \d+ tokens \(no recorded request/,
    );
    const refusedPins: [string, RegExp][] = [
      ['3', /^agent-tape: entry 3 is already pinned\n$/],
      ['3,3', /^agent-tape: entry 3 is already pinned\n$/],
      ['1', /^agent-tape: entry 1 is a session\/start anchor; only messages, tool calls, tool results and errors can be pinned\n$/],
      ['4', /not before the compaction at entry 4/],
    ];
    for (const [ids, message] of refusedPins) {
      const r = await runCli(['compact', tape, '--session', SESSION, '--pin', ids]);
      assert.deepStrictEqual([r.code, r.out], [2, ''], ids);
      assert.match(r.err, message);
    }
    let ctx = await context();
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.entryId),
      [null, 3],
    );
    assert.match(
      ctx.messages[1].content,
      /^\[Pinned by the user: entry 3 \(message message\/assistant\), from before the checkpoint\]\nSwitched to esbuild\.$/,
    );

    const file = path.join(dir, 'summary.md');
    fs.writeFileSync(file, 'The build moved to esbuild; run the tests next.\n');
    const edit = await runCli(['compact', tape, '--session', SESSION, '--summary-file', file, '--json']);
    assert.strictEqual(edit.code, 0);
    assert.deepStrictEqual(JSON.parse(edit.out), {
      type: 'amendment',
      sessionId: SESSION,
      entryId: 6,
      name: 'compaction/summary-edit',
      anchorEntryId: 4,
      alreadyPinned: [],
      fit: JSON.parse(edit.out).fit,
    });
    ctx = await context();
    assert.match(ctx.messages[0].content, /\n\nThe build moved to esbuild; run the tests next\.$/);

    const undo = await runCli(['compact', tape, '--session', SESSION, '--undo']);
    assert.deepStrictEqual([undo.code, undo.out], [0, '7\n']);
    assert.match(undo.err, /the next context starts from the session start/);
    ctx = await context();
    assert.strictEqual(ctx.anchorEntryId, null);
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.entryId),
      [2, 3],
    );
    // Only appended: every entry before the amendments is as it was.
    assert.deepStrictEqual((await entries()).slice(0, before.length), before);
    const verify = await runCli(['verify', tape, '--session', SESSION]);
    assert.strictEqual(verify.code, 0, verify.out + verify.err);

    const again = await runCli(['compact', tape, '--session', SESSION, '--undo']);
    assert.strictEqual(again.code, 2);
    assert.match(again.err, /every compaction of it is undone/);
  });

  it('refuses bad amendment flags before touching the tape', async () => {
    await seed();
    // 70,000 characters of two UTF-8 bytes each: within the file's byte bound, over the summary's.
    const long = path.join(dir, 'long.md');
    fs.writeFileSync(long, '\u00e9'.repeat(70_000));
    const before = JSON.stringify(await entries());
    const cases: [string[], RegExp][] = [
      [['--pin', '3,x'], /--pin takes entry ids separated by commas/],
      [['--pin', '3', '--undo'], /give one amendment at a time/],
      [['--summary-file', path.join(dir, 'missing.md')], /--summary-file .*missing\.md/],
      [['--summary-file', '/dev/zero'], /--summary-file \/dev\/zero: \/dev\/zero: is a character device, not a regular file/],
      [['--summary-file', long], new RegExp(`^agent-tape: --summary-file ${long}: the summary is 70,000 characters; at most 65,536\n`)],
      [
        ['--pin', '3', '--base-url', 'http://127.0.0.1:9', '--model', 'm'],
        /--pin with --base-url, --model: an amendment calls no model, so it takes no model flags/,
      ],
      [['--undo', '--api-key-env', 'KEY'], /--undo with --api-key-env: an amendment calls no model/],
      [['--summary-file', long, '--context-window', '4096'], /--summary-file with --context-window: an amendment calls no model/],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(['compact', tape, '--session', SESSION, ...flags]);
      assert.strictEqual(r.code, 2, flags.join(' '));
      assert.match(r.err, message);
    }
    fs.writeFileSync(path.join(dir, 'bin.md'), Buffer.from([0xff, 0xfe, 0x00]));
    const binary = await runCli(['compact', tape, '--session', SESSION, '--summary-file', path.join(dir, 'bin.md')]);
    assert.strictEqual(binary.code, 2);
    assert.match(binary.err, /not UTF-8 text/);
    assert.strictEqual(JSON.stringify(await entries()), before);
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
