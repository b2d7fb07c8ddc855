import * as assert from 'assert';
import type { ModelRequest } from '../../../../src/agent/model/modelPort';
import { ProviderError } from '../../../../src/agent/model/providerError';
import { ScriptedModel } from '../../../../src/agent/model/scriptedModel';
import { sendRequest } from '../../../../src/agent/model/sendRequest';

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, jitter: 0, maxRetryAfterMs: 1_000 };
const request: ModelRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [], maxOutput: 64, temperature: 0 };

/** A clock that moves 10 ms each time it is read. */
const ticking = (): (() => number) => {
  let t = 0;
  return () => (t += 10);
};

describe('sendRequest: one request through a model port, its response collected', () => {
  it('collects the text, the parsed tool calls, the stop reason, the usage, the latency and the attempt; the port gets the request as is', async () => {
    const model = new ScriptedModel([
      [
        { text: 'Let me ' },
        { text: 'look.' },
        { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } } },
        { toolCall: { id: 'c2', name: 'list_dir', arguments: 'not json' } },
        { usage: { inputTokens: 12, outputTokens: 5, cachedInputTokens: 8 } },
      ],
    ]);
    const r = await sendRequest(model, request, { signal: new AbortController().signal, now: ticking() });
    assert.strictEqual(model.requests[0], request);
    assert.strictEqual(r.status, 'ok');
    assert.strictEqual(r.text, 'Let me look.');
    assert.deepStrictEqual(
      r.toolCalls.map((c) => (c.valid ? { name: c.name, arguments: c.arguments } : { name: c.name, invalid: c.rawArguments })),
      [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'list_dir', invalid: 'not json' },
      ],
    );
    assert.strictEqual(r.stopReason, 'tool_calls');
    assert.deepStrictEqual(r.usage, { inputTokens: 12, outputTokens: 5, cachedInputTokens: 8, estimated: false });
    assert.ok(r.latencyMs > 0 && r.latencyMs % 10 === 0);
    assert.deepStrictEqual(
      r.attempts.map((a) => [a.attempt, a.status, a.retryDecision]),
      [[1, 'ok', 'none']],
    );
    assert.strictEqual(r.error, null);
  });

  it('retries a transient failure as a turn does, and reports a failure it gives up on as a result, not a throw', async () => {
    const retried = await sendRequest(new ScriptedModel([[{ error: new ProviderError('server') }], [{ text: 'ok' }]]), request, {
      signal: new AbortController().signal,
      retry: FAST_RETRY,
    });
    assert.strictEqual(retried.status, 'ok');
    assert.strictEqual(retried.text, 'ok');
    assert.deepStrictEqual(
      retried.attempts.map((a) => [a.status, a.retryDecision]),
      [
        ['error', 'retry'],
        ['ok', 'none'],
      ],
    );

    const failed = await sendRequest(new ScriptedModel([[{ text: 'par' }, { error: new ProviderError('auth') }]]), request, {
      signal: new AbortController().signal,
      retry: FAST_RETRY,
    });
    assert.strictEqual(failed.status, 'failed');
    assert.strictEqual(failed.text, 'par');
    assert.strictEqual(failed.error?.failureClass, 'auth');
    assert.deepStrictEqual(failed.toolCalls, []);
    assert.deepStrictEqual(
      failed.attempts.map((a) => [a.status, a.failureClass, a.retryDecision]),
      [['error', 'auth', 'give_up']],
    );
  });

  it('a cancelled signal ends it as cancelled, with no tool calls', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([[{ text: 'a' }, { toolCall: { id: 'c1', name: 'read_file', arguments: {} } }, { text: 'b' }]]);
    const sending = sendRequest(model, request, { signal: controller.signal });
    controller.abort();
    const r = await sending;
    assert.strictEqual(r.status, 'cancelled');
    assert.deepStrictEqual(r.toolCalls, []);
    assert.strictEqual(r.stopReason, 'cancelled');
  });
});
