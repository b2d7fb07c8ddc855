import * as assert from 'assert';
import type { ModelRequest } from '../../../../src/agent/model/modelPort';
import { OpenAiCompatibleModel, type OpenAiCompatibleOptions } from '../../../../src/agent/model/openAiCompatible';
import { ProviderError } from '../../../../src/agent/model/providerError';
import { closedPort, startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from '../../../support/fakeOpenAiServer';
import { collect, failure } from './collect';

const KEY = 'sk-test-SECRET-0123456789';
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Read a.txt' },
    { role: 'assistant', content: 'Reading.' },
    { role: 'assistant', content: '{"path":"a.txt"}', toolCallId: 'c1', toolName: 'read_file' },
    { role: 'tool', content: 'hello', toolCallId: 'c1', toolName: 'read_file' },
  ],
  tools: [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  maxOutput: 256,
};

describe('OpenAiCompatibleModel against a real HTTP server on 127.0.0.1', function () {
  this.timeout(5_000);
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function model(replies: FakeReply[], options: Partial<OpenAiCompatibleOptions> = {}): Promise<OpenAiCompatibleModel> {
    server = await startFakeOpenAiServer(replies);
    return new OpenAiCompatibleModel({ baseURL: server.baseURL, apiKey: KEY, model: 'm1', contextWindow: 8_000, maxOutput: 512, timeoutMs: 2_000, ...options });
  }
  const run = (m: OpenAiCompatibleModel, signal = new AbortController().signal) => m.stream(request, signal);

  it('streams text, reports the usage of the final chunk and stops; the request is streaming chat with tools', async () => {
    const m = await model([
      { stream: [{ text: 'Hel' }, { text: 'lo' }, { text: '!' }], usage: { prompt_tokens: 40, completion_tokens: 3, cached_tokens: 32 } },
    ]);
    const r = await collect(run(m));
    assert.strictEqual(r.text, 'Hello!');
    assert.deepStrictEqual(r.usage, { inputTokens: 40, outputTokens: 3, cachedInputTokens: 32, estimated: false });
    assert.strictEqual(r.stop, 'stop');
    assert.deepStrictEqual(
      r.events.slice(-2).map((e) => e.type),
      ['usage', 'stop'],
    );

    const sent = server!.requests[0];
    assert.strictEqual(sent.path, '/v1/chat/completions');
    assert.strictEqual(sent.headers.authorization, `Bearer ${KEY}`);
    assert.strictEqual(sent.body.model, 'm1');
    assert.strictEqual(sent.body.stream, true);
    assert.deepStrictEqual(sent.body.stream_options, { include_usage: true });
    assert.strictEqual(sent.body.max_tokens, 256);
    assert.deepStrictEqual(sent.body.tools, [{ type: 'function', function: request.tools[0] }]);
    assert.deepStrictEqual(sent.body.messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Read a.txt' },
      { role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'hello' },
    ]);
  });

  it('sends the sampling options a request carries, under the API names, and none it leaves out', async () => {
    const m = await model([{ stream: [{ text: 'a' }] }, { stream: [{ text: 'b' }] }, { stream: [{ text: 'c' }] }]);
    const signal = new AbortController().signal;
    await collect(m.stream({ ...request, temperature: 0, seed: 7, reasoningEffort: 'low', toolChoice: { name: 'read_file' } }, signal));
    await collect(m.stream({ ...request, toolChoice: 'required' }, signal));
    // A tool choice without tools is not sent: servers refuse it.
    await collect(m.stream({ ...request, tools: [], toolChoice: 'required' }, signal));
    const [varied, required, toolless] = server!.requests.map((r) => r.body);
    assert.strictEqual(varied.temperature, 0);
    assert.strictEqual(varied.seed, 7);
    assert.strictEqual(varied.reasoning_effort, 'low');
    assert.deepStrictEqual(varied.tool_choice, { type: 'function', function: { name: 'read_file' } });
    assert.strictEqual(required.tool_choice, 'required');
    for (const key of ['temperature', 'seed', 'reasoning_effort']) assert.ok(!(key in required), `${key} is not sent when the request has none`);
    assert.ok(!('tool_choice' in toolless) && !('tools' in toolless));
  });

  it('assembles tool calls from interleaved fragments by index; bad JSON becomes an invalid call, not a crash', async () => {
    const m = await model([
      {
        stream: [
          { toolCall: { index: 0, id: 'call_a', name: 'read_file', arguments: '{"pa' } },
          { toolCall: { index: 1, id: 'call_b', name: 'list_dir', arguments: '{"path":' } },
          { toolCall: { index: 0, arguments: 'th":"src/a.ts",' } },
          { toolCall: { index: 0, arguments: '"startLine":3}' } },
          { toolCall: { index: 1, arguments: ' "src"' } },
          { toolCall: { index: 2, id: 'call_c', name: 'tape_info', arguments: '' } },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 20 },
      },
    ]);
    const r = await collect(run(m));
    assert.strictEqual(r.stop, 'tool_calls');
    assert.deepStrictEqual(r.calls[0], {
      id: 'call_a',
      name: 'read_file',
      valid: true,
      arguments: { path: 'src/a.ts', startLine: 3 },
      rawArguments: '{"path":"src/a.ts","startLine":3}',
    });
    assert.strictEqual(r.calls[1].valid, false);
    assert.strictEqual(r.calls[1].rawArguments, '{"path": "src"');
    assert.match(!r.calls[1].valid ? r.calls[1].problem : '', /not valid JSON/);
    assert.deepStrictEqual(r.calls[2], { id: 'call_c', name: 'tape_info', valid: true, arguments: {}, rawArguments: '' });
  });

  it('a server that sends no usage gets an estimate, calibrated by the last real usage', async () => {
    const m = await model([
      { stream: [{ text: 'x'.repeat(40) }] },
      { stream: [{ text: 'ok' }], usage: { prompt_tokens: 200, completion_tokens: 1 } },
      { stream: [{ text: 'x'.repeat(40) }] },
    ]);
    const first = (await collect(run(m))).usage!;
    assert.strictEqual(first.estimated, true);
    assert.strictEqual(first.outputTokens, 10);
    const real = (await collect(run(m))).usage!;
    assert.deepStrictEqual(real, { inputTokens: 200, outputTokens: 1, estimated: false });
    const third = (await collect(run(m))).usage!;
    assert.strictEqual(third.estimated, true);
    // The server counted 200 where the raw estimate said first.inputTokens: the same prompt now estimates as 200.
    assert.ok(first.inputTokens < 150);
    assert.ok(Math.abs(third.inputTokens - 200) <= 1, `calibrated estimate ${third.inputTokens}`);
    assert.ok(third.outputTokens > first.outputTokens, 'the output estimate scales with the calibration');
    assert.strictEqual(m.countTokens(request.messages) > 0, true);
  });

  it('an empty API key sends no Authorization header (local servers)', async () => {
    const m = await model([{ stream: [{ text: 'hi' }] }], { apiKey: '' });
    assert.strictEqual((await collect(run(m))).text, 'hi');
    assert.strictEqual(server!.requests[0].headers.authorization, undefined);
  });

  const statusCases: { reply: FakeReply; cls: string; transient: boolean; retryAfterMs?: number }[] = [
    { reply: { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' } } }, cls: 'auth', transient: false },
    { reply: { status: 403, body: { error: { message: 'forbidden' } } }, cls: 'auth', transient: false },
    { reply: { status: 404, body: { error: { message: 'model "m1" not found, try pulling it first' } } }, cls: 'model_missing', transient: false },
    { reply: { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens" } } }, cls: 'context_too_long', transient: false },
    { reply: { status: 400, body: { error: { message: 'too long', code: 'context_length_exceeded' } } }, cls: 'context_too_long', transient: false },
    { reply: { status: 400, body: { error: { message: 'messages: expected array' } } }, cls: 'bad_response', transient: false },
    { reply: { status: 429, headers: { 'retry-after': '3' } }, cls: 'rate_limit', transient: true, retryAfterMs: 3000 },
    { reply: { status: 429, headers: { 'retry-after-ms': '120', 'retry-after': '9' } }, cls: 'rate_limit', transient: true, retryAfterMs: 120 },
    { reply: { status: 500 }, cls: 'server', transient: true },
    { reply: { status: 503, body: { error: { message: `upstream said Bearer ${KEY}` } } }, cls: 'server', transient: true },
  ];
  for (const c of statusCases) {
    const status = (c.reply as { status: number }).status;
    it(`HTTP ${status} ${JSON.stringify((c.reply as { body?: unknown }).body ?? (c.reply as { headers?: unknown }).headers ?? '')} is ${c.cls}`, async () => {
      const m = await model([c.reply]);
      const { error } = await failure(run(m));
      assert.ok(error instanceof ProviderError, String(error));
      assert.strictEqual(error.failureClass, c.cls);
      assert.strictEqual(error.transient, c.transient);
      assert.strictEqual(error.status, status);
      assert.strictEqual(error.retryAfterMs, c.retryAfterMs);
      assert.ok(!error.message.includes(KEY) && !error.message.includes('SECRET'), error.message);
      assert.strictEqual(server!.requests.length, 1, 'the SDK does not retry on its own');
    });
  }

  it('a redirect is not followed: to another origin, the error names it and nothing reaches it; to the same origin, it is refused too', async () => {
    const elsewhere = await startFakeOpenAiServer([{ stream: [{ text: 'got it all' }] }]);
    try {
      const origin = new URL(elsewhere.baseURL).origin;
      for (const status of [307, 308, 302]) {
        const m = await model([{ status, headers: { location: `${elsewhere.baseURL}/chat/completions?token=abc` } }]);
        const { error } = await failure(run(m));
        assert.ok(error instanceof ProviderError, String(error));
        assert.strictEqual(
          error.message,
          `The model server sent a response that could not be used (HTTP ${status}): it redirects to another origin, ${origin}; Agent Tape does not follow a model server's redirects, so the conversation is not sent there: set the base URL to the address you mean`,
        );
        assert.deepStrictEqual([error.transient, server!.requests.length, elsewhere.requests.length], [false, 1, 0]);
        await server!.close();
      }
      const m = await model([{ status: 308, headers: { location: '/v2/chat/completions' } }]);
      const { error } = await failure(run(m));
      assert.ok(
        error instanceof ProviderError && /it redirects to \/v2\/chat\/completions on the same server; Agent Tape does not follow/.test(error.message),
        String(error),
      );
      assert.strictEqual(server!.requests.length, 1);
    } finally {
      await elsewhere.close();
    }
  });

  it('Retry-After as an HTTP date is honoured', async () => {
    const m = await model([{ status: 429, headers: { 'retry-after': new Date(Date.now() + 5_000).toUTCString() } }]);
    const { error } = await failure(run(m));
    assert.ok(error instanceof ProviderError);
    assert.ok(error.retryAfterMs !== undefined && error.retryAfterMs > 3_000 && error.retryAfterMs <= 5_000, String(error.retryAfterMs));
  });

  it('a server that never answers times out, and so does one that goes silent mid-stream', async () => {
    let m = await model([{ hang: true }], { timeoutMs: 150 });
    const started = Date.now();
    let r = await failure(run(m));
    assert.ok(r.error instanceof ProviderError && r.error.failureClass === 'timeout' && r.error.transient, String(r.error));
    assert.ok(Date.now() - started < 1_500);
    await server!.close();
    m = await model([{ stream: [{ text: 'a' }, { text: 'b' }], chunkDelayMs: 400 }], { timeoutMs: 150 });
    r = await failure(run(m));
    assert.ok(r.error instanceof ProviderError && r.error.failureClass === 'timeout', String(r.error));
  });

  it('a closed port is unreachable, and the message names neither the key', async () => {
    const port = await closedPort();
    const m = new OpenAiCompatibleModel({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: KEY,
      model: 'm1',
      contextWindow: 8_000,
      maxOutput: 512,
      timeoutMs: 2_000,
    });
    const { error } = await failure(m.stream(request, new AbortController().signal));
    assert.ok(error instanceof ProviderError && error.failureClass === 'unreachable' && error.transient, String(error));
    assert.match(error.message, /ECONNREFUSED/);
    assert.ok(!error.message.includes(KEY));
  });

  it('a stream cut mid-way is a bad response, after the text that did arrive', async () => {
    const m = await model([{ stream: [{ text: 'one ' }, { text: 'two ' }, { text: 'three' }], cutAfter: 2 }]);
    const { error, before } = await failure(run(m));
    assert.strictEqual(before.text, 'one two ');
    assert.ok(error instanceof ProviderError && error.failureClass === 'bad_response', String(error));
  });

  it('aborting the signal stops the stream with the stop reason cancelled and closes the connection', async () => {
    const m = await model([{ stream: Array.from({ length: 40 }, (_, i) => ({ text: `${i} ` })), chunkDelayMs: 20 }]);
    const controller = new AbortController();
    const events = [];
    for await (const e of m.stream(request, controller.signal)) {
      events.push(e);
      if (e.type === 'text' && e.delta === '2 ') controller.abort();
    }
    const texts = events.filter((e) => e.type === 'text');
    assert.ok(texts.length < 10, `${texts.length} text events after the abort`);
    assert.deepStrictEqual(events[events.length - 1], { type: 'stop', reason: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.strictEqual(server!.abandoned, 1);
  });

  it('an already aborted signal sends nothing', async () => {
    const m = await model([]);
    const controller = new AbortController();
    controller.abort();
    assert.deepStrictEqual((await collect(m.stream(request, controller.signal))).stop, 'cancelled');
    assert.strictEqual(server!.requests.length, 0);
  });
});
