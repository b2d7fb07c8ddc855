import * as assert from 'assert';
import { OpenAiCompatibleModel } from '../../../../src/agent/model/openAiCompatible';
import { ProviderError } from '../../../../src/agent/model/providerError';
import { decideRetry, streamWithRetry, type AttemptRecord, type RetryPolicy } from '../../../../src/agent/model/retry';
import { ScriptedModel } from '../../../../src/agent/model/scriptedModel';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../../support/fakeOpenAiServer';
import { collect, failure } from './collect';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 35, jitter: 0.5, maxRetryAfterMs: 1_000 };
const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [], maxOutput: 64 };
const never = new AbortController().signal;

describe('decideRetry (pure)', () => {
  it('backs off exponentially, capped, the jitter taking off at most its share', () => {
    const server = new ProviderError('server', { status: 500 });
    assert.deepStrictEqual(
      [1, 2, 3].map((a) => decideRetry(policy, a, server, () => 0)),
      [
        { retry: true, delayMs: 10 },
        { retry: true, delayMs: 20 },
        { retry: true, delayMs: 35 },
      ],
    );
    assert.deepStrictEqual(
      decideRetry(policy, 2, server, () => 1),
      { retry: true, delayMs: 10 },
    );
    assert.deepStrictEqual(
      decideRetry(policy, 4, server, () => 0),
      { retry: false, delayMs: 0 },
      'the last attempt is final',
    );
  });

  it('Retry-After wins over the backoff, unless it asks for more than the policy waits', () => {
    assert.deepStrictEqual(
      decideRetry(policy, 1, new ProviderError('rate_limit', { status: 429, retryAfterMs: 700 }), () => 0),
      { retry: true, delayMs: 700 },
    );
    assert.deepStrictEqual(
      decideRetry(policy, 1, new ProviderError('rate_limit', { status: 429, retryAfterMs: 5_000 }), () => 0),
      { retry: false, delayMs: 0 },
    );
  });

  it('never retries what fails the same way again', () => {
    for (const e of [
      new ProviderError('auth', { status: 401 }),
      new ProviderError('model_missing', { status: 404 }),
      new ProviderError('context_too_long', { status: 400 }),
      new ProviderError('bad_response', { status: 422 }),
      new ProviderError('cancelled'),
    ]) {
      assert.deepStrictEqual(decideRetry(policy, 1, e), { retry: false, delayMs: 0 }, e.failureClass);
    }
    for (const e of [
      new ProviderError('unreachable'),
      new ProviderError('timeout'),
      new ProviderError('bad_response'),
      new ProviderError('server', { status: 502 }),
    ]) {
      assert.strictEqual(decideRetry(policy, 1, e).retry, true, e.failureClass);
    }
  });
});

describe('streamWithRetry', function () {
  this.timeout(5_000);
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('retries a 429 after its retry-after-ms and a 500 after the backoff, recording every physical attempt', async () => {
    server = await startFakeOpenAiServer([
      { status: 429, headers: { 'retry-after-ms': '60' } },
      { status: 500 },
      { stream: [{ text: 'done' }], usage: { prompt_tokens: 9, completion_tokens: 1, cached_tokens: 4 } },
    ]);
    const model = new OpenAiCompatibleModel({ baseURL: server.baseURL, apiKey: 'k', model: 'm', contextWindow: 1_000, maxOutput: 64, timeoutMs: 1_000 });
    const records: AttemptRecord[] = [];
    const started = Date.now();
    const r = await collect(streamWithRetry(model, request, never, { policy, onAttempt: (a) => records.push(a), random: () => 0 }));
    assert.strictEqual(r.text, 'done');
    assert.ok(Date.now() - started >= 70, 'waited 60 ms + 10 ms');
    assert.strictEqual(server.requests.length, 3);
    assert.deepStrictEqual(
      records.map(({ durationMs, ...rest }) => (assert.ok(durationMs >= 0), rest)),
      [
        { attempt: 1, status: 'error', failureClass: 'rate_limit', retryDecision: 'retry', delayMs: 60 },
        { attempt: 2, status: 'error', failureClass: 'server', retryDecision: 'retry', delayMs: 20 },
        {
          attempt: 3,
          status: 'ok',
          retryDecision: 'none',
          usage: { inputTokens: 9, outputTokens: 1, cachedInputTokens: 4, estimated: false },
          stopReason: 'stop',
        },
      ],
    );
  });

  it('gives up after maxAttempts and throws the last failure', async () => {
    server = await startFakeOpenAiServer(Array.from({ length: 5 }, () => ({ status: 503 })));
    const model = new OpenAiCompatibleModel({ baseURL: server.baseURL, apiKey: 'k', model: 'm', contextWindow: 1_000, maxOutput: 64 });
    const records: AttemptRecord[] = [];
    const { error } = await failure(streamWithRetry(model, request, never, { policy, onAttempt: (a) => records.push(a), random: () => 1 }));
    assert.ok(error instanceof ProviderError && error.failureClass === 'server');
    assert.deepStrictEqual(
      records.map((a) => a.retryDecision),
      ['retry', 'retry', 'retry', 'give_up'],
    );
    assert.deepStrictEqual(
      records.map((a) => a.delayMs),
      [5, 10, 18, undefined],
    );
    assert.strictEqual(server.requests.length, 4);
  });

  it('does not retry a failure that comes after part of the answer was streamed', async () => {
    server = await startFakeOpenAiServer([{ stream: [{ text: 'half ' }, { text: 'an answer' }], cutAfter: 1 }, { stream: [{ text: 'never sent' }] }]);
    const model = new OpenAiCompatibleModel({ baseURL: server.baseURL, apiKey: 'k', model: 'm', contextWindow: 1_000, maxOutput: 64 });
    const records: AttemptRecord[] = [];
    const { error, before } = await failure(streamWithRetry(model, request, never, { policy, onAttempt: (a) => records.push(a) }));
    assert.strictEqual(before.text, 'half ');
    assert.ok(error instanceof ProviderError && error.failureClass === 'bad_response' && error.transient);
    assert.deepStrictEqual(
      records.map((a) => [a.status, a.failureClass, a.retryDecision]),
      [['error', 'bad_response', 'give_up']],
    );
    assert.strictEqual(server.requests.length, 1);
  });

  it('a cancel during the backoff wait ends the stream as cancelled without another attempt', async () => {
    const model = new ScriptedModel([[{ error: new ProviderError('server', { status: 500 }) }], [{ text: 'too late' }]]);
    const controller = new AbortController();
    const records: AttemptRecord[] = [];
    const slow: RetryPolicy = { ...policy, baseDelayMs: 2_000, maxDelayMs: 2_000 };
    const started = Date.now();
    const events = streamWithRetry(model, request, controller.signal, {
      policy: slow,
      onAttempt: (a) => (records.push(a), setTimeout(() => controller.abort(), 20)),
      random: () => 0,
    });
    const r = await collect(events);
    assert.ok(Date.now() - started < 1_000);
    assert.strictEqual(r.stop, 'cancelled');
    assert.strictEqual(model.requests.length, 1);
    assert.deepStrictEqual(
      records.map((a) => a.retryDecision),
      ['retry'],
    );
  });

  it('a cancelled stream is recorded as a cancelled attempt and not retried', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([[{ text: 'a' }, { text: 'b' }, { text: 'c' }]]);
    const records: AttemptRecord[] = [];
    const seen: string[] = [];
    for await (const e of streamWithRetry(model, request, controller.signal, { policy, onAttempt: (a) => records.push(a) })) {
      seen.push(e.type === 'text' ? e.delta : e.type === 'stop' ? e.reason : e.type);
      if (e.type === 'text') controller.abort();
    }
    assert.deepStrictEqual(seen, ['a', 'cancelled']);
    assert.deepStrictEqual(
      records.map(({ durationMs: _d, ...r }) => r),
      [{ attempt: 1, status: 'error', failureClass: 'cancelled', retryDecision: 'give_up', stopReason: 'cancelled' }],
    );
  });
});
