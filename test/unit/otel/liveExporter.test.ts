import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { LiveOtlpExporter, type LiveExportOptions } from '../../../src/otel/liveExporter';
import type { OtlpEndpoint } from '../../../src/otel/otlpEndpoint';
import { sessionSpans } from '../../../src/otel/otlpExport';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import { closedPort } from '../../support/fakeOpenAiServer';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../support/otlpReceiver';

const SESSION = 'live';
const HEADER_SECRET = 'otel-canary-header-5b1f0c9e';
const KEY_IN_PROMPT = 'sk-canaryPromptKey0123456789abcdef';

const op = (s: { attributes: Record<string, unknown> }): unknown => s.attributes['gen_ai.operation.name'];
const FAST = { collectDelayMs: 20, firstBackoffMs: 20, maxBackoffMs: 100 };

/** A turn of our agent whose model reads notes.md, then answers. */
const READ_THEN_ANSWER: ScriptedStep[][] = [
  [
    { text: 'Reading.' },
    { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } },
    { usage: { inputTokens: 120, outputTokens: 12, cachedInputTokens: 40 } },
  ],
  [{ text: 'It says to build with esbuild.' }, { usage: { inputTokens: 150, outputTokens: 9, cachedInputTokens: 100 } }],
];

describe('live OpenTelemetry export (src/otel/liveExporter.ts) to a loopback receiver decoding with the OTLP protos', function () {
  this.timeout(60_000);
  before(() => loadSqlJs());
  let dir: string;
  let store: TapeStore;
  let receiver: OtlpReceiver;
  let exporter: LiveOtlpExporter | undefined;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-live-otel-'));
    fs.mkdirSync(path.join(dir, 'ws'));
    fs.writeFileSync(path.join(dir, 'ws', 'notes.md'), 'Build with esbuild.\n');
    store = await TapeStore.open(path.join(dir, 't.tape.sqlite'));
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await exporter?.dispose(100);
    exporter = undefined;
    await store.close();
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const endpointOf = (url: string, over: Partial<OtlpEndpoint> = {}): OtlpEndpoint => ({
    url,
    protocol: 'http/protobuf',
    headers: {},
    timeoutMs: 5000,
    ...over,
  });
  const start = (options: Partial<LiveExportOptions> = {}): LiveOtlpExporter =>
    (exporter = new LiveOtlpExporter(
      { store, onDidAppend: (l) => store.onDidAppend(l) },
      { endpoint: endpointOf(receiver.url), tape: 't.tape.sqlite', ...options, tuning: { ...FAST, ...options.tuning } },
    ));
  const turn = async (text: string, steps: ScriptedStep[][] = READ_THEN_ANSWER): Promise<void> => {
    const outcome = await new AgentSession({
      tape: new OpenTape(store),
      sessionId: SESSION,
      model: new ScriptedModel(steps),
      workspace: path.join(dir, 'ws'),
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-12-06' },
    }).runTurn(text, { signal: new AbortController().signal });
    assert.strictEqual(outcome.outcome, 'answer');
  };
  /** The file export's spans of the tape as it is now: what the live export must add up to. */
  const fileSpans = () => [...sessionSpans(store, { tape: 't.tape.sqlite' })].flatMap((s) => s.spans);
  const ids = (spans: readonly { spanId: string }[]): string[] => spans.map((s) => s.spanId).sort();

  it("sends our agent's turns as they land, each span once, the same ids, parents and attributes as the file export", async () => {
    const live = start();
    await turn('Read notes.md please');
    await live.flush();
    const first = receiver.spans();
    assert.deepStrictEqual(first.map((s) => s.name).sort(), ['chat scripted', 'chat scripted', 'execute_tool read_file', 'invoke_agent agent-tape']);
    await turn('And again');
    await live.flush();
    const all = receiver.spans();
    const expected = fileSpans();
    assert.strictEqual(new Set(ids(expected)).size, 8, 'a call id the model used in both turns still gives two spans');
    assert.deepStrictEqual(ids(all), ids(expected), 'each span exactly once, with the ids the file export gives');
    for (const e of expected) {
      const got = all.find((s) => s.spanId === e.spanId) as ReceivedSpan;
      assert.strictEqual(got.traceId, e.traceId);
      assert.strictEqual(got.parentSpanId, e.parentSpanId ?? '');
      assert.strictEqual(got.name, e.name);
      assert.strictEqual(got.serviceName, 'agent-tape');
      assert.deepStrictEqual(got.attributes, e.attributes);
      assert.strictEqual(BigInt(got.endTimeUnixNano), BigInt(e.endMs) * 1_000_000n);
    }
    // A turn's span goes after its children, as a tracer ends them.
    for (const request of receiver.requests) {
      const kinds = request.spans.map(op);
      const lastChild = Math.max(kinds.lastIndexOf('chat'), kinds.lastIndexOf('execute_tool'));
      if (kinds.includes('invoke_agent')) assert.ok(kinds.indexOf('invoke_agent') > lastChild, kinds.join(' '));
    }
    assert.strictEqual(receiver.rejected.length, 0);
    const status = live.status();
    assert.deepStrictEqual(
      { ...status, lastSentAt: null },
      {
        sentSpans: 8,
        sentRequests: receiver.requests.length,
        failedRequests: 0,
        droppedSpans: 0,
        queuedSpans: 0,
        lastError: null,
        lastSentAt: null,
      },
    );
    for (const s of all)
      for (const k of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'])
        assert.ok(!(k in s.attributes), k);
  });

  it('what was on the tape before it started is not sent; the headers go with each request; http/json alike', async () => {
    await turn('An old turn');
    const live = start({ endpoint: endpointOf(receiver.url, { protocol: 'http/json', headers: { authorization: `Bearer ${HEADER_SECRET}` } }) });
    await turn('A new turn');
    await live.flush();
    const spans = receiver.spans();
    assert.strictEqual(spans.length, 4);
    const turnSpan = spans.find((s) => op(s) === 'invoke_agent') as ReceivedSpan;
    const newTurn = fileSpans().filter((s) => op(s) === 'invoke_agent')[1];
    assert.strictEqual(turnSpan.spanId, newTurn.spanId);
    assert.ok(receiver.requests.every((r) => r.contentType === 'application/json' && r.headers.authorization === `Bearer ${HEADER_SECRET}`));
  });

  it('content only when asked, and then neither the header value nor a key-shaped text is sent', async () => {
    const live = start({ content: true, endpoint: endpointOf(receiver.url, { headers: { 'x-api-key': HEADER_SECRET } }) });
    await turn(`Read notes.md please; my key is ${KEY_IN_PROMPT} and the collector's is ${HEADER_SECRET}`);
    await live.flush();
    const turnSpan = receiver.spans().find((s) => op(s) === 'invoke_agent') as ReceivedSpan;
    const input = String(turnSpan.attributes['gen_ai.input.messages']);
    assert.match(input, /Read notes\.md please; my key is \[redacted\] and the collector's is \[redacted\]/);
    assert.match(String(receiver.spans().find((s) => op(s) === 'execute_tool')?.attributes['gen_ai.tool.call.result']), /esbuild/);
    for (const r of receiver.requests) {
      assert.ok(!r.body.includes(KEY_IN_PROMPT));
      assert.ok(!r.body.includes(HEADER_SECRET));
    }
    // A later turn's window starts after the system prompt: it is still sent, as the file export sends it.
    await turn('And again');
    await live.flush();
    const filed = [...sessionSpans(store, { tape: 't.tape.sqlite', content: true })].flatMap((x) => x.spans).filter((x) => op(x) === 'invoke_agent');
    const sent = receiver.spans().filter((x) => op(x) === 'invoke_agent');
    assert.strictEqual(sent.length, 2);
    for (const f of filed) {
      const instructions = f.attributes['gen_ai.system_instructions'];
      assert.ok(typeof instructions === 'string' && instructions.length > 100);
      assert.strictEqual(sent.find((x) => x.spanId === f.spanId)?.attributes['gen_ai.system_instructions'], instructions);
    }
  });

  it("another agent's turn (no turn ids, no end mark) goes when the next one starts or the session is quiet", async () => {
    const live = start({ tuning: { quietMs: 1500 } });
    const user = (id: string, content: string) => ({
      kind: 'message' as const,
      name: 'message/user',
      payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content },
    });
    const attempt = {
      kind: 'event' as const,
      name: ATTEMPT_EVENT,
      payload: { name: ATTEMPT_EVENT, data: { model: 'gpt-5', provider: 'openai', status: 'ok' } },
    };
    await store.append('codex-1', user('u1', 'first'));
    await store.append('codex-1', attempt);
    await receiver.waitFor(() => receiver.spans().length > 0, 5000);
    assert.deepStrictEqual(receiver.spans().map(op), ['chat'], 'the request at once, its turn still open');
    await store.append('codex-1', user('u2', 'second'));
    await receiver.waitFor(() => receiver.spans().length > 1, 5000);
    assert.deepStrictEqual(receiver.spans().map(op).sort(), ['chat', 'invoke_agent'], 'the first turn once the second starts');
    await receiver.waitFor(() => receiver.spans().length === 3, 10_000);
    assert.deepStrictEqual(receiver.spans().map(op).sort(), ['chat', 'invoke_agent', 'invoke_agent'], 'the second once the session is quiet');
    assert.strictEqual(new Set(receiver.spans().map((s) => s.spanId)).size, 3);
    // The agent was only thinking: what it appends to that turn later is still sent, the turn not again.
    await store.append('codex-1', attempt);
    await receiver.waitFor(() => receiver.spans().length === 4, 5000);
    assert.deepStrictEqual(receiver.spans().map(op).sort(), ['chat', 'chat', 'invoke_agent', 'invoke_agent']);
    assert.strictEqual(new Set(receiver.spans().map((s) => s.spanId)).size, 4);
    await live.flush();
    assert.strictEqual(receiver.spans().length, 4);
  });

  it('started in the middle of a turn: that turn goes when it ends, with only the requests made since', async () => {
    const user = (id: string) => ({
      kind: 'message' as const,
      name: 'message/user',
      payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content: id },
    });
    const attempt = {
      kind: 'event' as const,
      name: ATTEMPT_EVENT,
      payload: { name: ATTEMPT_EVENT, data: { model: 'gpt-5', provider: 'openai', status: 'ok' } },
    };
    for (const e of [user('u0'), attempt, user('u1'), attempt]) await store.append('codex-2', e);
    const live = start();
    await store.append('codex-2', attempt);
    await store.append('codex-2', user('u2'));
    await live.flush();
    const filed = fileSpans();
    const turns = filed.filter((x) => op(x) === 'invoke_agent');
    const chats = filed.filter((x) => op(x) === 'chat');
    assert.deepStrictEqual([turns.length, chats.length], [3, 3]);
    // The turn of u1 (open when the exporter started) and the request made since; nothing of u0's turn, nor u1's first request.
    assert.deepStrictEqual(ids(receiver.spans()), ids([turns[1], chats[2]]));
    const sentTurn = receiver.spans().find((x) => op(x) === 'invoke_agent') as ReceivedSpan;
    assert.deepStrictEqual(sentTurn.attributes, turns[1].attributes);
  });

  it('429 with Retry-After: tried again after the wait and sent once', async () => {
    receiver.reply((i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const live = start();
    await turn('Read notes.md please');
    const t0 = Date.now();
    await live.flush(10_000);
    assert.ok(Date.now() - t0 >= 900, 'the server asked for a second');
    assert.strictEqual(receiver.requests.length, 2);
    assert.deepStrictEqual(ids(receiver.spans()), ids(fileSpans()));
    const s = live.status();
    assert.deepStrictEqual([s.sentSpans, s.sentRequests, s.failedRequests, s.droppedSpans, s.lastError], [4, 1, 0, 0, null]);
  });

  it('500 is final: the batch is dropped and counted, not tried again, and the next spans still go', async () => {
    receiver.reply((i) => ({ status: i === 0 ? 500 : 200 }));
    const logs: string[] = [];
    const live = start({ log: (level, line) => logs.push(`${level} ${line}`) });
    await turn('Read notes.md please');
    await live.flush();
    assert.strictEqual(receiver.requests.length, 1);
    let s = live.status();
    assert.deepStrictEqual([s.sentSpans, s.failedRequests, s.droppedSpans], [0, 1, 4]);
    assert.match(s.lastError ?? '', /^HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
    assert.ok(
      logs.some((l) => /^error OpenTelemetry: 4 spans dropped: HTTP 500/.test(l)),
      logs.join('\n'),
    );
    await turn('Again');
    await live.flush();
    s = live.status();
    assert.deepStrictEqual([s.sentSpans, s.failedRequests, s.droppedSpans, s.lastError], [4, 1, 4, null]);
  });

  it('an endpoint that is down: tried with backoff, then given up and counted', async () => {
    const port = await closedPort();
    const logs: string[] = [];
    const statuses: number[] = [];
    const live = start({
      endpoint: endpointOf(`http://127.0.0.1:${port}/v1/traces`),
      log: (level, line) => logs.push(`${level} ${line}`),
      onStatus: (st) => statuses.push(st.failedRequests),
      tuning: { maxAttempts: 3 },
    });
    await turn('Read notes.md please');
    await live.flush(10_000);
    const s = live.status();
    assert.deepStrictEqual([s.sentSpans, s.failedRequests, s.droppedSpans, s.queuedSpans], [0, 1, 4, 0]);
    assert.match(s.lastError ?? '', /ECONNREFUSED.*\(3 tries\)$/);
    assert.strictEqual(logs.filter((l) => l.startsWith('warn ') && /tried again in \d+ ms \(try [23] of 3\)/.test(l)).length, 2, logs.join('\n'));
    assert.strictEqual(statuses.at(-1), 1);
  });

  it('a slow endpoint: the request is ended at its deadline and tried again', async () => {
    receiver.reply((i) => (i === 0 ? { status: 200, delayMs: 3000 } : { status: 200 }));
    const live = start({ endpoint: endpointOf(receiver.url, { timeoutMs: 300 }) });
    await turn('Read notes.md please');
    await live.flush(10_000);
    const s = live.status();
    assert.deepStrictEqual([s.sentSpans, s.sentRequests, s.failedRequests, s.droppedSpans], [4, 1, 0, 0]);
    assert.strictEqual(receiver.requests.length, 2);
    assert.deepStrictEqual(ids(receiver.requests[1].spans), ids(fileSpans()));
  });

  it('a full queue drops the oldest spans with a count while the endpoint refuses, and sends the newest when it is back', async () => {
    let refusing = true;
    receiver.reply(() => (refusing ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
    const logs: string[] = [];
    const live = start({ log: (level, line) => logs.push(`${level} ${line}`), tuning: { batchSpans: 1, queueSpans: 3 } });
    await turn('Read notes.md please');
    await turn('Again');
    await live.flush(50);
    refusing = false;
    await live.flush(10_000);
    const s = live.status();
    // 8 spans: at most one in its request and three in the queue survive; the rest, the oldest queued, are dropped.
    assert.deepStrictEqual([s.sentSpans + s.droppedSpans, s.failedRequests, s.queuedSpans], [8, 0, 0]);
    assert.ok(s.droppedSpans >= 4, `${s.droppedSpans} dropped`);
    assert.ok(
      logs.some((l) => /^warn OpenTelemetry: \d+ oldest spans dropped: at most 3 wait/.test(l)),
      logs.join('\n'),
    );
    const sent = receiver.spans();
    const lastTurn = fileSpans().filter((x) => op(x) === 'invoke_agent')[1];
    assert.ok(
      sent.some((x) => x.spanId === lastTurn.spanId),
      'the newest span, the last turn, was kept',
    );
  });
});
