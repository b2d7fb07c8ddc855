import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { run } from '../../../src/cli/main';
import type { Entry } from '../../../src/tape/entry';
import { manifestOfEntry } from '../../../src/tape/manifest';
import { fakeServerPerTest, sessionEntries } from '../../support/agentCliFixture';
import { runCli, startCli } from '../../support/cliProcess';
import { closedPort, type FakeReply } from '../../support/fakeOpenAiServer';
import { startOtlpReceiver } from '../../support/otlpReceiver';
import { buildCli } from './build';

const KEY = 'sk-test-4f9a1c7e2b';
const SESSION = 's1';

const data = (e: Entry): Record<string, unknown> => e.payload.data as Record<string, unknown>;

describe('agent-tape run (the bundled CLI against a scripted OpenAI-compatible server)', function () {
  this.timeout(60_000);
  let dir: string;
  let ws: string;
  let tape: string;

  before(buildCli);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-run-'));
    ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'hello from the file\n');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'TOP-SECRET outside the workspace\n');
    tape = path.join(dir, 'agent.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const startServer = fakeServerPerTest();

  const serve = startServer;

  const argsFor = (baseURL: string, prompt: string, extra: string[] = []): string[] => [
    'run',
    tape,
    '--session',
    SESSION,
    '--base-url',
    baseURL,
    '--model',
    'fake-model',
    '--workspace',
    ws,
    ...extra,
    '--',
    prompt,
  ];

  const entries = (): Promise<Entry[]> => sessionEntries(tape, SESSION);
  const named = (all: Entry[], name: string): Entry[] => all.filter((e) => e.name === name);

  const READ_THEN_ANSWER: FakeReply[] = [
    { stream: [{ text: 'Let me look.' }, { toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' } }] },
    { stream: [{ text: 'The file says ' }, { text: 'hello.' }], usage: { prompt_tokens: 900, completion_tokens: 5 } },
  ];

  it('a turn where the model reads a file then answers: the answer on stdout, the whole turn on the tape, view folds it', async () => {
    const srv = await serve(READ_THEN_ANSWER);
    const r = await runCli(argsFor(srv.baseURL, 'What does notes.txt say?'), { OPENAI_API_KEY: KEY });
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, 'Let me look.\nThe file says hello.\n');
    assert.match(r.err, /\[tool\] read_file \{"path":"notes.txt"\}\n\[tool\] read_file ok\n/);
    assert.strictEqual(srv.requests[0].headers.authorization, `Bearer ${KEY}`);
    const toolMessage = (srv.requests[1].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
    assert.match(toolMessage?.content ?? '', /hello from the file/);

    const all = await entries();
    assert.deepStrictEqual(
      all
        // A stream slower than the revision throttle (250 ms, a loaded machine) also writes a
        // pending revision of the answer; the fold keeps the sent one either way.
        .filter((e) => !(e.kind === 'message' && e.payload.status === 'pending'))
        .map((e) => `${e.kind} ${e.name}${e.kind === 'message' ? ` ${String(e.payload.status)}` : ''}`),
      [
        'anchor session/start',
        'system system/prompt',
        'event turn/start',
        'message message/user sent',
        'system system/tools',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant sent',
        'tool_call read_file',
        'tool_result read_file',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant sent',
        'event turn/end',
      ],
    );
    const [result] = all.filter((e) => e.kind === 'tool_result');
    assert.strictEqual(result.payload.status, 'ok');
    assert.match(String(result.payload.output), /hello from the file/);
    assert.strictEqual(named(all, 'message/assistant').filter((e) => e.payload.status === 'sent')[1].payload.content, 'The file says hello.');
    assert.deepStrictEqual(
      named(all, 'view/assembled').map((e) => manifestOfEntry(e).requestSeq),
      [1, 2],
    );
    assert.deepStrictEqual(
      named(all, 'provider/attempt').map((e) => [data(e).requestSeq, data(e).status]),
      [
        [1, 'ok'],
        [2, 'ok'],
      ],
    );
    assert.strictEqual(data(named(all, 'turn/end')[0]).outcome, 'answer');

    const view = await runCli(['view', tape, '--session', SESSION]);
    assert.strictEqual(view.code, 0, view.err);
    assert.match(view.out, /1 tool calls/);
    for (const text of ['user: What does notes.txt say?', 'assistant: Let me look.', 'assistant: The file says hello.'])
      assert.ok(view.out.includes(text), `view shows ${text}:\n${view.out}`);
    const folded = JSON.parse((await runCli(['view', tape, '--session', SESSION, '--json'])).out) as { toolCalls: { name: string }[]; toolResults: unknown[] };
    assert.deepStrictEqual([folded.toolCalls.map((c) => c.name), folded.toolResults.length], [['read_file'], 1]);
  });

  it('--json prints one JSON event per line on stdout, ending with turn_end {outcome, sessionId}', async () => {
    const srv = await serve(READ_THEN_ANSWER);
    const r = await runCli(argsFor(srv.baseURL, 'What does notes.txt say?', ['--json']));
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.err, '');
    const events = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepStrictEqual(
      events.map((e) => e.type),
      ['text', 'tool_call', 'tool_result', 'text', 'text', 'turn_end'],
    );
    assert.deepStrictEqual([events[1].name, events[1].input], ['read_file', { path: 'notes.txt' }]);
    assert.deepStrictEqual([events[2].status, events[2].output], ['ok', 'hello from the file\n']);
    const end = events[events.length - 1];
    assert.deepStrictEqual([end.outcome, end.sessionId, end.rounds], ['answer', SESSION, 2]);
  });

  it('run_subagent: the child reads a file, its steps print as [subagent] lines, the parent answers from its answer, the tape links it', async () => {
    const task = JSON.stringify({ task: 'Read notes.txt and report.', tools: ['read_file'] });
    const srv = await serve([
      { stream: [{ toolCall: { index: 0, id: 'p1', name: 'run_subagent', arguments: task } }] },
      { stream: [{ toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' } }] },
      { stream: [{ text: 'It says hello.' }] },
      { stream: [{ text: 'The subagent found: hello.' }] },
    ]);
    const r = await runCli(argsFor(srv.baseURL, 'Delegate reading notes.txt.'), { OPENAI_API_KEY: KEY });
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, 'The subagent found: hello.\n');
    const child = /\[subagent\] completed \(session (\S+)\)/.exec(r.err)?.[1];
    assert.ok(child?.startsWith(`${SESSION}::subagent::`), r.err);
    assert.match(
      r.err,
      /\[tool\] run_subagent .*\n\[subagent\] started: Read notes\.txt and report\.\n\[subagent\] read_file notes\.txt\n\[subagent\] wrote: It says hello\.\n\[subagent\] completed \(session \S+\)\n\[tool\] run_subagent ok\n/,
    );
    assert.deepStrictEqual(
      (srv.requests[1].body.tools as { function: { name: string } }[]).map((t) => t.function.name),
      ['read_file'],
    );
    const toolMessage = (srv.requests[3].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
    assert.strictEqual(toolMessage?.content, 'It says hello.');
    const [link] = named(await entries(), 'subagent/linked');
    assert.deepStrictEqual([data(link).childSessionId, data(link).outcome], [child, 'completed']);
    assert.strictEqual(data(link).childHeadEntryId, (await sessionEntries(tape, child!)).length);
  });

  it('429 then success: two attempts, one manifest, exit 0', async () => {
    const srv = await serve([{ status: 429, headers: { 'retry-after': '0' } }, { stream: [{ text: 'fine now' }] }]);
    const r = await runCli(argsFor(srv.baseURL, 'hi'));
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, 'fine now\n');
    const all = await entries();
    assert.strictEqual(named(all, 'view/assembled').length, 1);
    assert.deepStrictEqual(
      named(all, 'provider/attempt').map((e) => [data(e).requestSeq, data(e).attempt, data(e).status, data(e).failureClass ?? null, data(e).retryDecision]),
      [
        [1, 1, 'error', 'rate_limit', 'retry'],
        [1, 2, 'ok', null, 'none'],
      ],
    );
  });

  it('401: a clear error, exit 1, the failure on the tape; the key (even echoed by the server) is nowhere', async () => {
    const srv = await serve([{ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }]);
    const r = await runCli(argsFor(srv.baseURL, 'hi'), { OPENAI_API_KEY: KEY });
    assert.strictEqual(r.code, 1);
    assert.match(r.err, /The model server refused the credentials \(HTTP 401\)/);
    const all = await entries();
    const [failure] = named(all, 'error/provider');
    assert.strictEqual((failure.payload.details as Record<string, unknown>).failureClass, 'auth');
    assert.strictEqual(data(named(all, 'turn/end')[0]).outcome, 'provider_error');

    // A successful turn too, so the tape holds requests, manifests and answers made with the key.
    await srv.close();
    const ok = await serve(READ_THEN_ANSWER);
    const r2 = await runCli(argsFor(ok.baseURL, 'What does notes.txt say?'), { OPENAI_API_KEY: KEY });
    assert.strictEqual(r2.code, 0, r2.err);
    const exported = path.join(dir, 'agent.tape.jsonl');
    const exp = await runCli(['export', tape, exported]);
    assert.strictEqual(exp.code, 0, exp.err);
    const haystacks = {
      stdout: r.out + r2.out,
      stderr: r.err + r2.err,
      export: fs.readFileSync(exported, 'utf8'),
      snapshot: fs.readFileSync(tape).toString('latin1'),
    };
    for (const [where, text] of Object.entries(haystacks)) assert.ok(!text.includes(KEY), `the API key is in the ${where}`);
    assert.match(haystacks.export, /\[redacted\]/);
  });

  it('commands the model runs see neither the API key nor other secret-looking variables, except those --pass-env names', async () => {
    const secrets = { OPENAI_API_KEY: 'sk-openai-6d1e', MY_KEY_VAR: KEY, GITHUB_TOKEN: 'ghp-7c2a', MY_SECRET: 'shh-9b3f', DB_PASSWORD: 'pw-4e8d' };
    const command = 'echo "k=$MY_KEY_VAR o=$OPENAI_API_KEY g=$GITHUB_TOKEN s=$MY_SECRET d=$DB_PASSWORD n=$NPM_TOKEN h=$HOME_DIR"';
    const srv = await serve([
      { stream: [{ toolCall: { index: 0, id: 'c1', name: 'run_command', arguments: JSON.stringify({ command }) } }] },
      { stream: [{ text: 'Done.' }] },
    ]);
    const r = await runCli(argsFor(srv.baseURL, 'Print the environment', ['--api-key-env', 'MY_KEY_VAR', '--allow-commands', '--pass-env', 'NPM_TOKEN']), {
      ...secrets,
      NPM_TOKEN: 'npm-passed',
      HOME_DIR: '/h',
    });
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(srv.requests[0].headers.authorization, `Bearer ${KEY}`, 'the agent itself still has its key');
    const [result] = (await entries()).filter((e) => e.kind === 'tool_result');
    assert.strictEqual(result.payload.output, 'exit code 0\nk= o= g= s= d= n=npm-passed h=/h\n');
    const exported = path.join(dir, 'agent.tape.jsonl');
    assert.strictEqual((await runCli(['export', tape, exported])).code, 0);
    const found = await runCli(['search', tape, 'sk']);
    const haystacks = {
      requests: JSON.stringify(srv.requests.map((q) => q.body)),
      export: fs.readFileSync(exported, 'utf8'),
      snapshot: fs.readFileSync(tape).toString('latin1'),
      search: found.out,
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const [name, value] of Object.entries(secrets)) assert.ok(!text.includes(value), `${name} is in the ${where}`);
    }
  });

  it('with OTEL_EXPORTER_OTLP_* set, the turn goes live to the collector; the header secret reaches no command, tape or span', async () => {
    const receiver = await startOtlpReceiver();
    // The collector asks for a second at first: the CLI stays for it once the turn is over.
    receiver.reply((i) => (i === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
    try {
      const HEADER = 'Bearer otel-canary-9d2c7a41f3';
      const srv = await serve([
        { stream: [{ toolCall: { index: 0, id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: 'env' }) } }] },
        { stream: [{ text: 'Done.' }], usage: { prompt_tokens: 300, completion_tokens: 2 } },
      ]);
      const r = await runCli(argsFor(srv.baseURL, 'Print the environment', ['--allow-commands']), {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ''),
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=${encodeURIComponent(HEADER)}`,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      });
      assert.strictEqual(r.code, 0, r.err);
      assert.match(r.err, /OpenTelemetry: 4 spans sent in \d+ requests?\n/);
      const spans = receiver.spans();
      assert.deepStrictEqual(spans.map((s) => s.name).sort(), ['chat fake-model', 'chat fake-model', 'execute_tool run_command', 'invoke_agent agent-tape']);
      assert.ok(receiver.requests.every((q) => q.headers.authorization === HEADER && q.contentType === 'application/x-protobuf'));
      const usage = spans.map((s) => s.attributes['gen_ai.usage.input_tokens']).filter((n) => n !== undefined);
      assert.ok(usage.includes(300), JSON.stringify(usage));
      const [result] = (await entries()).filter((e) => e.kind === 'tool_result');
      assert.match(String(result.payload.output), /OTEL_EXPORTER_OTLP_ENDPOINT=/, 'the command ran and printed its environment');
      const haystacks = {
        command: String(result.payload.output),
        tape: fs.readFileSync(tape).toString('latin1'),
        spans: receiver.requests.map((q) => q.body.toString('latin1')).join(''),
        output: r.out + r.err,
      };
      for (const [where, text] of Object.entries(haystacks)) assert.ok(!text.includes('otel-canary-9d2c7a41f3'), `the header is in the ${where}`);
    } finally {
      await receiver.close();
    }
  });

  it('a bad OTEL_EXPORTER_OTLP_PROTOCOL is a usage error before the turn: exit 2, no request, no tape', async () => {
    const srv = await serve(READ_THEN_ANSWER);
    const r = await runCli(argsFor(srv.baseURL, 'Hello'), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    assert.strictEqual(r.code, 2);
    assert.match(r.err, /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http\/protobuf/);
    assert.strictEqual(srv.requests.length, 0);
    assert.ok(!fs.existsSync(tape));
  });

  it('search_text in the bundled CLI: a pattern that backtracks exponentially is an error result within seconds, and the next search works', async () => {
    fs.writeFileSync(path.join(ws, 'slow.txt'), `${'a'.repeat(5000)}b\n`);
    const srv = await serve([
      { stream: [{ toolCall: { index: 0, id: 'c1', name: 'search_text', arguments: JSON.stringify({ query: '(a+)+$', isRegex: true }) } }] },
      { stream: [{ toolCall: { index: 0, id: 'c2', name: 'search_text', arguments: JSON.stringify({ query: 'hel+o', isRegex: true }) } }] },
      { stream: [{ text: 'Found it.' }] },
    ]);
    const r = await runCli(argsFor(srv.baseURL, 'Search'));
    assert.strictEqual(r.code, 0, r.err);
    const outputs = (await entries()).filter((e) => e.kind === 'tool_result').map((e) => `${String(e.payload.status)} ${String(e.payload.output)}`);
    assert.deepStrictEqual(outputs, [
      'error search_text failed: the pattern took longer than 2 s on slow.txt; simplify it (nested quantifiers such as (a+)+ backtrack exponentially)',
      'ok notes.txt:1: hello from the file',
    ]);
  });

  it('an unreachable server: a clear error, exit 1, the failure on the tape', async () => {
    const port = await closedPort();
    const r = await runCli(argsFor(`http://127.0.0.1:${port}/v1`, 'hi'));
    assert.strictEqual(r.code, 1);
    assert.match(r.err, /The model server cannot be reached/);
    const all = await entries();
    assert.strictEqual((named(all, 'error/provider')[0].payload.details as Record<string, unknown>).failureClass, 'unreachable');
    assert.ok(named(all, 'provider/attempt').length > 1, 'an unreachable server is retried');
    assert.strictEqual(data(named(all, 'turn/end')[0]).outcome, 'provider_error');
  });

  it('paths outside the workspace, an edit without --allow-edits and invalid input are error results; nothing leaks or is written; the turn goes on', async () => {
    fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(ws, 'link.txt'));
    const calls: [string, string][] = [
      ['read_file', '{"path":"../secret.txt"}'],
      ['read_file', JSON.stringify({ path: path.join(dir, 'secret.txt') })],
      ['read_file', '{"path":"link.txt"}'],
      ['apply_edit', '{"path":"new.txt","newText":"written"}'],
      ['apply_edit', '{"path":"../evil.txt","newText":"written"}'],
      ['read_file', '{"startLine":"one"}'],
      ['list_dir', '{oops'],
    ];
    const srv = await serve([
      { stream: calls.map(([name, args], index) => ({ toolCall: { index, id: `c${index}`, name, arguments: args } })) },
      { stream: [{ text: 'I could not do that.' }] },
    ]);
    const r = await runCli(argsFor(srv.baseURL, 'Read the secret and write files'));
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, 'I could not do that.\n');
    const all = await entries();
    const results = all.filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual(
      results.map((e) => e.payload.status),
      calls.map(() => 'error'),
    );
    const outputs = results.map((e) => String(e.payload.output));
    assert.match(outputs[3], /permission|not allowed|--allow-edits|refused/i);
    assert.match(outputs[5], /invalid input for read_file/);
    assert.match(outputs[6], /invalid call of list_dir/);
    assert.ok(!JSON.stringify(srv.requests).includes('TOP-SECRET'), 'the secret never reached the model');
    assert.ok(!JSON.stringify(all).includes('TOP-SECRET'), 'the secret is not on the tape');
    assert.strictEqual(fs.existsSync(path.join(ws, 'new.txt')), false);
    assert.strictEqual(fs.existsSync(path.join(dir, 'evil.txt')), false);
    assert.strictEqual(srv.requests.length, 2, 'the turn went on to a second request');
    assert.strictEqual(data(named(all, 'turn/end')[0]).outcome, 'answer');
  });

  it('SIGINT mid-stream: the partial text with status error, exit 130; the next run continues the session', async () => {
    const words = Array.from({ length: 100 }, (_, i) => ({ text: `word${i} ` }));
    const slow = await serve([{ stream: words, chunkDelayMs: 50 }]);
    const running = startCli(argsFor(slow.baseURL, 'Tell me a long story'));
    const deadline = Date.now() + 20_000;
    while (!running.out().includes('word2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    running.child.kill('SIGINT');
    const r = await running.done;
    assert.strictEqual(r.code, 130, r.err);
    assert.match(r.err, /cancelled/);
    let all = await entries();
    const [partial] = named(all, 'message/assistant').filter((e) => e.payload.status === 'error');
    assert.match(String(partial.payload.content), /^word0 word1 word2 /);
    assert.ok(!String(partial.payload.content).includes('word99'));
    assert.strictEqual(data(named(all, 'turn/end')[0]).outcome, 'cancelled');

    await slow.close();
    const next = await serve([{ stream: [{ text: 'Continuing.' }] }]);
    const r2 = await runCli(argsFor(next.baseURL, 'Go on'));
    assert.strictEqual(r2.code, 0, r2.err);
    const sent = (next.requests[0].body.messages as { role: string; content: string }[]).map((m) => m.content);
    assert.ok(sent.includes('Tell me a long story') && sent.includes('Go on'), 'the second turn sees the first');
    all = await entries();
    assert.deepStrictEqual(
      named(all, 'turn/end').map((e) => data(e).outcome),
      ['cancelled', 'answer'],
    );
    assert.strictEqual(named(all, 'system/prompt').length, 1, 'an unchanged system prompt is written once');
  });

  it('a long session with a small --context-window: auto-compaction appends one anchor, the next manifest starts from it, log keeps every entry', async () => {
    const long = (turn: number): FakeReply => ({ stream: [{ text: `Answer ${turn}: ${'the build uses esbuild and the tests use mocha; '.repeat(25)}` }] });
    const summary = JSON.stringify({ goal: 'Understand the build', decisions: ['esbuild bundles, mocha tests'], filesTouched: [], openWork: ['keep going'] });
    const srv = await serve([long(1), long(2), { stream: [{ text: summary }] }, long(3), long(4)]);
    // Sized so that turn 3 (two long answers) passes the compaction threshold (0.56 of the window)
    // and turn 4 (checkpoint and one long answer) stays ~130 tokens under it; the tool definitions
    // are in every prompt, so a new tool shifts both turns alike.
    const small = ['--context-window', '4550', '--json'];
    const outcomes: number[] = [];
    for (let turn = 1; turn <= 4; turn++) outcomes.push((await runCli(argsFor(srv.baseURL, `Question ${turn} about the build`, small))).code ?? -1);
    assert.deepStrictEqual(outcomes, [0, 0, 0, 0]);
    const firstMessage = (i: number) => (srv.requests[i].body.messages as { content: string }[])[0].content;
    assert.match(firstMessage(2), /^You compact a coding agent's conversation/);
    assert.strictEqual(srv.requests.length, 5);

    const all = await entries();
    const anchors = all.filter((e) => e.name === 'compaction/auto');
    assert.strictEqual(anchors.length, 1);
    const [anchor] = anchors;
    const manifests = named(all, 'view/assembled').map(manifestOfEntry);
    assert.deepStrictEqual(
      manifests.map((m) => m.anchorEntryId),
      [null, null, anchor.entryId, anchor.entryId],
    );
    // The turn that was compacted still sends its own question, verbatim, after the checkpoint.
    const third = srv.requests[3].body.messages as { role: string; content: string }[];
    assert.match(third[1].content, /Understand the build/);
    assert.deepStrictEqual(
      third.slice(2).map((m) => m.content),
      ['Question 3 about the build'],
    );

    const log = await runCli(['log', tape, '--session', SESSION, '--json']);
    assert.strictEqual(log.code, 0, log.err);
    assert.deepStrictEqual(
      log.out
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as Entry).entryId),
      all.map((e) => e.entryId),
    );
    // Sent versions only: on a loaded machine the throttle may also have written a pending revision.
    const sent = (name: string) => named(all, name).filter((e) => e.payload.status === 'sent').length;
    assert.ok(sent('message/user') === 4 && sent('message/assistant') === 4, 'nothing was deleted');
  });

  it('usage errors exit 2 and never open the tape; the key cannot be given on the command line', async () => {
    const base = ['--session', SESSION, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];
    const cases: [string[], RegExp][] = [
      [['run', tape, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', 'hi'], /--session is required/],
      [['run', tape, '--session', SESSION, '--model', 'm', 'hi'], /--base-url is required/],
      [['run', tape, ...base, '--api-key', KEY, 'hi'], /unknown option --api-key/],
      [['run', tape, ...base], /expected <tape\.sqlite> <prompt\.\.\.>/],
      [['run', tape, ...base, '--', '  '], /the prompt is empty/],
      [['run', tape, ...base, '--max-rounds', '0', 'hi'], /--max-rounds must be at least 1/],
      [['run', tape, ...base, '--context-window', '100', 'hi'], /--context-window must be at least/],
      [['run', tape, '--session', SESSION, '--base-url', 'ftp://x', '--model', 'm', 'hi'], /--base-url: "ftp:\/\/x" is not an http\(s\) URL/],
      [['run', tape, ...base, '--workspace', path.join(dir, 'nope'), 'hi'], /is not a directory/],
      [['run', path.join(dir, 'x.tape.jsonl'), ...base, 'hi'], /run writes to \*\.tape\.sqlite files/],
    ];
    for (const [argv, pattern] of cases) {
      let out = '';
      let err = '';
      const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t) });
      assert.strictEqual(code, 2, `${argv.join(' ')}: ${err}`);
      assert.match(err, pattern);
      assert.strictEqual(out, '');
    }
    assert.strictEqual(fs.existsSync(tape), false);
  });
});
