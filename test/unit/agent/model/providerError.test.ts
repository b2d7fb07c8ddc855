import * as assert from 'assert';
import { classifyStatus, ProviderError } from '../../../../src/agent/model/providerError';
import { retryAfterMs } from '../../../../src/agent/model/retryAfter';

describe('provider error classification', () => {
  it('maps statuses to classes; a 400 is a context overflow only when it says so', () => {
    assert.deepStrictEqual(
      [401, 403, 404, 429, 408, 500, 502, 503].map((s) => classifyStatus(s)),
      ['auth', 'auth', 'model_missing', 'rate_limit', 'timeout', 'server', 'server', 'server'],
    );
    assert.strictEqual(classifyStatus(400, 'the request exceeds the available context size, try increasing it'), 'context_too_long');
    assert.strictEqual(classifyStatus(400, 'prompt is too long: 210000 tokens > 200000 maximum'), 'context_too_long');
    assert.strictEqual(classifyStatus(400, 'whatever', 'context_length_exceeded'), 'context_too_long');
    assert.strictEqual(classifyStatus(400, 'unknown field "foo"'), 'bad_response');
  });

  it('never keeps a secret in the message', () => {
    const e = new ProviderError('auth', { status: 401, detail: 'key sk-abc rejected (sk-abc)', secrets: ['sk-abc', ''] });
    assert.strictEqual(e.message, 'The model server refused the credentials (HTTP 401): key [redacted] rejected ([redacted])');
    assert.strictEqual(e.transient, false);
  });

  it('reads retry-after-ms, Retry-After seconds and HTTP dates; ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const h = (init: Record<string, string>) => new Headers(init);
    assert.strictEqual(retryAfterMs(h({ 'retry-after-ms': '250', 'retry-after': '7' }), now), 250);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': '7' }), now), 7_000);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': '1.5' }), now), 1_500);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' }), now), 12_000);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now), 0);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': 'soon' }), now), undefined);
    assert.strictEqual(retryAfterMs(h({ 'retry-after': '-3' }), now), undefined);
    assert.strictEqual(retryAfterMs(h({}), now), undefined);
    assert.strictEqual(retryAfterMs(undefined, now), undefined);
  });
});
