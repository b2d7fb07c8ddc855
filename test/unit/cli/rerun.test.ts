import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Entry } from '../../../src/tape/entry';
import { manifestOfEntry } from '../../../src/tape/manifest';
import { sessionEntries } from '../../support/agentCliFixture';
import { runCli } from '../../support/cliProcess';
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from '../../support/fakeOpenAiServer';
import { buildCli } from './build';

const SESSION = 's1';
const Q1 = 'What does notes.txt say?';
const READ_NOTES: FakeReply = {
  stream: [{ text: 'Let me look.' }, { toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
};
const READ_OTHER: FakeReply = { stream: [{ toolCall: { index: 0, id: 'c2', name: 'read_file', arguments: '{"path":"other.txt"}' } }] };

type Body = { messages: { role: string; content: unknown }[]; tools?: unknown[] } & Record<string, unknown>;
const bodyOf = (srv: FakeOpenAiServer, i: number): Body => srv.requests[i].body as Body;
const data = (e: Entry): Record<string, unknown> => e.payload.data as Record<string, unknown>;
const named = (all: Entry[], name: string): Entry[] => all.filter((e) => e.name === name);

describe('agent-tape rerun (the bundled CLI against a scripted OpenAI-compatible server)', function () {
  this.timeout(60_000);
  let template: string;
  /** The bodies the recording sent: turn 1's two requests, then turn 2's one. */
  let recordedBodies: Body[];
  let dir: string;
  let ws: string;
  let tape: string;
  const servers: FakeOpenAiServer[] = [];
  const serve = async (replies: FakeReply[]) => {
    const s = await startFakeOpenAiServer(replies, 60_000);
    servers.push(s);
    return s;
  };

  before(async () => {
    await buildCli();
    template = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-rerun-template-'));
    const tws = path.join(template, 'ws');
    fs.mkdirSync(tws);
    fs.writeFileSync(path.join(tws, 'notes.txt'), 'hello from the file\n');
    const t = path.join(template, 'agent.tape.sqlite');
    const srv = await startFakeOpenAiServer([READ_NOTES, { stream: [{ text: 'The file says hello.' }] }, { stream: [{ text: 'You asked about notes.' }] }]);
    const turn = (prompt: string) =>
      runCli(['run', t, '--session', SESSION, '--base-url', srv.baseURL, '--model', 'fake-model', '--workspace', tws, '--', prompt]);
    for (const prompt of [Q1, 'What did I ask?']) {
      const r = await turn(prompt);
      assert.strictEqual(r.code, 0, r.err);
    }
    recordedBodies = srv.requests.map((q) => q.body as Body);
    await srv.close();
    assert.strictEqual(recordedBodies.length, 3);
  });
  after(() => fs.rmSync(template, { recursive: true, force: true }));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-rerun-'));
    fs.cpSync(template, dir, { recursive: true });
    ws = path.join(dir, 'ws');
    tape = path.join(dir, 'agent.tape.sqlite');
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The view/assembled entries of the recorded session: turn 1's requests 1 and 2, turn 2's request 1. */
  const requestIds = async (): Promise<number[]> => named(await sessionEntries(tape, SESSION), 'view/assembled').map((e) => e.entryId);
  const rerun = (baseURL: string, entryId: number, extra: string[] = []) =>
    runCli(['rerun', tape, '--session', SESSION, '--request', String(entryId), '--base-url', baseURL, '--model', 'fake-model', ...extra]);
  const jsonOf = (out: string) =>
    JSON.parse(out) as {
      forkSessionId: string;
      promptHashMatches: boolean;
      text: string;
      toolCalls: { id: string; name: string; arguments: unknown }[];
      outcome: string;
      divergence: { requestSeq: number; index: number; call: { name: string; input: unknown } | null; recorded: unknown } | null;
      steps: { requestSeq: number; toolCalls: { name: string; result: string }[] }[];
    };

  it('without a variation: the same messages, tools and parameters as the original request, the prompt hash matches, the answer lands in a fork made just before it, the source is unchanged', async () => {
    const [first] = await requestIds();
    const before = await sessionEntries(tape, SESSION);
    const srv = await serve([READ_NOTES]);
    const r = await rerun(srv.baseURL, first, ['--json']);
    assert.strictEqual(r.code, 0, r.err);
    assert.deepStrictEqual(bodyOf(srv, 0), recordedBodies[0], 'the re-sent body is the recorded one, whole');
    const out = jsonOf(r.out);
    assert.strictEqual(out.promptHashMatches, true);
    assert.strictEqual(out.text, 'Let me look.');
    assert.deepStrictEqual(out.toolCalls, [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.txt' } }]);
    assert.strictEqual(out.outcome, 'recorded');
    assert.match(out.forkSessionId, /^s1::fork::/);

    const fork = await sessionEntries(tape, out.forkSessionId);
    assert.deepStrictEqual(
      fork.map((e) => `${e.kind} ${e.name}`),
      [
        'anchor session/start',
        'anchor fork/start',
        'event rerun/request',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant',
        'tool_call read_file',
      ],
      'the call is recorded, not run',
    );
    assert.strictEqual((fork[1].payload.state as { parentHeadEntryId: number }).parentHeadEntryId, first - 1, 'forked just before the request');
    const recorded = manifestOfEntry(before.find((e) => e.entryId === first)!);
    const rerunData = data(fork[2]);
    assert.deepStrictEqual(
      [rerunData.sourceSessionId, rerunData.sourceEntryId, rerunData.sourceManifestHash, rerunData.promptHashMatches, rerunData.variation],
      [SESSION, first, recorded.hashes.manifestHash, true, {}],
    );
    const own = manifestOfEntry(fork[3]);
    assert.deepStrictEqual(
      [own.sessionId, own.hashes.promptHash, own.hashes.toolsHash],
      [out.forkSessionId, recorded.hashes.promptHash, recorded.hashes.toolsHash],
    );
    assert.strictEqual(rerunData.manifestHash, own.hashes.manifestHash);
    assert.deepStrictEqual(await sessionEntries(tape, SESSION), before, 'the original session, entry for entry');

    const verify = await runCli(['verify', tape, '--session', out.forkSessionId]);
    assert.strictEqual(verify.code, 0, `the fork's own request verifies against its prefix:\n${verify.out}${verify.err}`);
    const human = await rerun((await serve([READ_NOTES])).baseURL, first);
    assert.strictEqual(human.code, 0, human.err);
    assert.match(
      human.out,
      /^fork: s1::fork::\S+\nprompt hash: matches the recorded request\n[^]*Let me look\.\n\[tool\] read_file \{"path":"notes.txt"\} \(waiting\)\noutcome: recorded\n$/,
    );
  });

  it('--system-prompt FILE sends exactly that change: the first message is the file, everything else as recorded', async () => {
    const [, second] = await requestIds();
    fs.writeFileSync(path.join(dir, 'prompt.txt'), 'You are a terse assistant.');
    const srv = await serve([{ stream: [{ text: 'hello.' }] }]);
    const r = await rerun(srv.baseURL, second, ['--system-prompt', path.join(dir, 'prompt.txt'), '--json']);
    assert.strictEqual(r.code, 0, r.err);
    const sent = bodyOf(srv, 0);
    const original = recordedBodies[1];
    assert.deepStrictEqual(sent.messages[0], { role: 'system', content: 'You are a terse assistant.' });
    assert.notDeepStrictEqual(original.messages[0], sent.messages[0]);
    assert.deepStrictEqual({ ...sent, messages: sent.messages.slice(1) }, { ...original, messages: original.messages.slice(1) });
    assert.strictEqual(jsonOf(r.out).promptHashMatches, false);
    const [event] = named(await sessionEntries(tape, jsonOf(r.out).forkSessionId), 'rerun/request');
    assert.deepStrictEqual(data(event).variation, { systemPrompt: 'You are a terse assistant.' });
    const verify = await runCli(['verify', tape, '--session', jsonOf(r.out).forkSessionId]);
    assert.strictEqual(verify.code, 0, `the varied fork's own request verifies:\n${verify.out}${verify.err}`);
  });

  it('--drop ENTRY leaves exactly that context item out', async () => {
    const [, , third] = await requestIds();
    const all = await sessionEntries(tape, SESSION);
    const question = all.find((e) => e.kind === 'message' && e.payload.content === Q1)!;
    const srv = await serve([{ stream: [{ text: 'No idea.' }] }]);
    const r = await rerun(srv.baseURL, third, ['--drop', String(question.entryId), '--json']);
    assert.strictEqual(r.code, 0, r.err);
    const original = recordedBodies[2];
    assert.ok(original.messages.some((m) => m.content === Q1));
    assert.deepStrictEqual(bodyOf(srv, 0), { ...original, messages: original.messages.filter((m) => m.content !== Q1) });
    assert.strictEqual(jsonOf(r.out).promptHashMatches, false);
    const verify = await runCli(['verify', tape]);
    assert.strictEqual(verify.code, 0, `the whole tape verifies, forks and variations included:\n${verify.out}${verify.err}`);
  });

  it('--continue answers an identical call from the tape (nothing runs) and stops at the first call that differs, as diverged', async () => {
    const [first] = await requestIds();
    const source = await sessionEntries(tape, SESSION);
    // Had the call run, the model would read this.
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'CHANGED since the recording\n');
    const srv = await serve([READ_NOTES, READ_OTHER]);
    const r = await rerun(srv.baseURL, first, ['--continue', '--json']);
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(srv.requests.length, 2);
    assert.deepStrictEqual(bodyOf(srv, 1).messages, recordedBodies[1].messages, 'the replayed result makes the next request the recorded one');
    const out = jsonOf(r.out);
    assert.strictEqual(out.outcome, 'diverged');
    assert.deepStrictEqual(out.divergence, { requestSeq: 2, index: 0, call: { name: 'read_file', input: { path: 'other.txt' } }, recorded: null });
    assert.deepStrictEqual(
      out.steps.map((s) => [s.requestSeq, s.toolCalls.map((c) => `${c.name} ${c.result}`)]),
      [
        [1, ['read_file replayed']],
        [2, ['read_file not_run']],
      ],
    );

    const fork = await sessionEntries(tape, out.forkSessionId);
    const [replayed, notRun] = fork.filter((e) => e.kind === 'tool_result');
    const recordedResult = source.find((e) => e.kind === 'tool_result')!;
    assert.deepStrictEqual(replayed.meta.replayedFrom, { sessionId: SESSION, entryId: recordedResult.entryId });
    assert.deepStrictEqual([replayed.payload.status, replayed.payload.output], [recordedResult.payload.status, recordedResult.payload.output]);
    assert.deepStrictEqual([notRun.payload.status, notRun.meta.replayedFrom], ['error', undefined]);
    assert.match(String(notRun.payload.output), /^not run: this call differs/);
    const [end] = named(fork, 'turn/end');
    assert.deepStrictEqual([data(end).outcome, data(end).turnId], ['diverged', manifestOfEntry(source.find((e) => e.entryId === first)!).turnId]);
    assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'CHANGED since the recording\n');
    assert.deepStrictEqual(await sessionEntries(tape, SESSION), source, 'the original session, entry for entry');
  });

  it('--continue: a call with other arguments than the recorded one at its step diverges at once, its result not taken from the tape', async () => {
    const [first] = await requestIds();
    const srv = await serve([READ_OTHER]);
    const r = await rerun(srv.baseURL, first, ['--continue', '--json']);
    assert.strictEqual(r.code, 0, r.err);
    const out = jsonOf(r.out);
    assert.strictEqual(out.outcome, 'diverged');
    const recordedCall = (await sessionEntries(tape, SESSION)).find((e) => e.kind === 'tool_call')!;
    assert.deepStrictEqual(out.divergence, {
      requestSeq: 1,
      index: 0,
      call: { name: 'read_file', input: { path: 'other.txt' } },
      recorded: { name: 'read_file', input: { path: 'notes.txt' }, entryId: recordedCall.entryId },
    });
    const [result] = (await sessionEntries(tape, out.forkSessionId)).filter((e) => e.kind === 'tool_result');
    assert.match(
      String(result.payload.output),
      /^not run: this call differs from the one recorded at this step \(the recording called read_file with other arguments\)/,
    );
    assert.strictEqual(srv.requests.length, 1, 'nothing more was sent');
  });

  it('--continue --live runs the first differing call and the rest for real, with --workspace', async () => {
    const [first] = await requestIds();
    fs.writeFileSync(path.join(ws, 'other.txt'), 'the other file\n');
    const srv = await serve([READ_NOTES, READ_OTHER, { stream: [{ text: 'Both read.' }] }]);
    const r = await rerun(srv.baseURL, first, ['--continue', '--live', '--workspace', ws, '--json']);
    assert.strictEqual(r.code, 0, r.err);
    const out = jsonOf(r.out);
    assert.strictEqual(out.outcome, 'answer');
    assert.strictEqual(out.divergence?.requestSeq, 2);
    const tool = bodyOf(srv, 2).messages.filter((m) => m.role === 'tool');
    assert.deepStrictEqual(
      tool.map((m) => m.content),
      ['hello from the file\n', 'the other file\n'],
    );
    const results = (await sessionEntries(tape, out.forkSessionId)).filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual(
      results.map((e) => e.meta.replayedFrom === undefined),
      [false, true],
      'the first replayed, the second run',
    );
    assert.deepStrictEqual(out.steps.at(-1)!.toolCalls, []);
  });

  it('a refusing server: exit 1, the failure recorded in the fork, the source unchanged', async () => {
    const [first] = await requestIds();
    const before = await sessionEntries(tape, SESSION);
    const srv = await serve([{ status: 401, body: { error: { message: 'no such key' } } }]);
    const r = await rerun(srv.baseURL, first, ['--json']);
    assert.strictEqual(r.code, 1, r.err);
    const out = jsonOf(r.out);
    assert.strictEqual(out.outcome, 'provider_error');
    const fork = await sessionEntries(tape, out.forkSessionId);
    const [failure] = named(fork, 'error/provider');
    assert.strictEqual((failure.payload.details as Record<string, unknown>).failureClass, 'auth');
    assert.strictEqual(data(named(fork, 'turn/end')[0]).outcome, 'provider_error');
    assert.deepStrictEqual(
      named(fork, 'provider/attempt').map((e) => data(e).status),
      ['error'],
    );
    assert.deepStrictEqual(await sessionEntries(tape, SESSION), before);
  });

  it('bad input exits 2, sends nothing and leaves the tape files byte-identical', async () => {
    const [first] = await requestIds();
    // A re-run left waiting at its call: a writable open would close that call (crash repair), so bad input must not open one.
    const waiting = await rerun((await serve([READ_NOTES])).baseURL, first);
    assert.strictEqual(waiting.code, 0, waiting.err);
    const files = () =>
      fs.readdirSync(dir).map((f) => [f, fs.statSync(path.join(dir, f)).isFile() ? fs.readFileSync(path.join(dir, f)).toString('base64') : 'dir']);
    const snapshot = files();
    const srv = await serve([READ_NOTES]);
    const bad = async (args: string[], why: RegExp) => {
      const r = await runCli(['rerun', tape, '--base-url', srv.baseURL, '--model', 'fake-model', ...args]);
      assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, why);
    };
    await bad(['--session', 'nope', '--request', String(first)], /no session "nope"/);
    await bad(['--session', SESSION, '--request', String(first - 1)], /not a view\/assembled request/);
    await bad(['--session', SESSION, '--request', '999'], /has no entry #999/);
    await bad(['--session', SESSION, '--request', String(first), '--system-prompt', path.join(dir, 'missing.txt')], /missing\.txt/);
    await bad(['--session', SESSION, '--request', String(first), '--drop', '1'], /cannot drop entry #1/);
    await bad(['--session', SESSION, '--request', String(first), '--live'], /--live needs --continue/);
    assert.strictEqual(srv.requests.length, 0);
    assert.deepStrictEqual(files(), snapshot);
  });
});
