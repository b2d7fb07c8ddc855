import * as assert from 'assert';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { tokenUsageProjection } from '../../../src/tape/projections/tokenUsage';
import { attemptEntry, messageEntry, toolResultEntry, turnEndEntry } from '../../../src/tape/turnEntries';

const turn = { sessionId: 's/1', turnId: 't 1' };

describe('turn entries', () => {
  it('a repeated append of the same attempt, revision, result or turn end writes nothing new', async () => {
    const store = await TapeStore.inMemory();
    const attempt = (n: number) => attemptEntry(turn, 1, { attempt: n, status: 'ok', retryDecision: 'none', durationMs: 3 });
    const entries = [
      attempt(1),
      attempt(2),
      attemptEntry({ ...turn, turnId: 't 2' }, 1, { attempt: 1, status: 'ok', retryDecision: 'none', durationMs: 3 }),
      messageEntry(turn, { messageId: 'm', role: 'assistant', orderSeq: 2, content: 'a', status: 'pending', revision: 1 }),
      messageEntry(turn, { messageId: 'm', role: 'assistant', orderSeq: 2, content: 'ab', status: 'pending', revision: 2 }),
      messageEntry(turn, { messageId: 'm', role: 'assistant', orderSeq: 2, content: 'abc', status: 'sent' }),
      toolResultEntry(turn, 'm', 'c1', 'read_file', { status: 'ok', output: 'x' }),
      turnEndEntry(turn, 'answer', 1),
    ];
    const first = await store.appendMany('s/1', entries);
    assert.ok(first.every((r) => !r.deduplicated));
    const again = await store.appendMany('s/1', entries);
    assert.ok(again.every((r) => r.deduplicated));
    assert.strictEqual(store.entries('s/1').length, 1 + entries.length);
    await store.close();
  });

  it('attempt usage is counted by the tokenUsage projection, cached tokens included', () => {
    const e = attemptEntry(turn, 1, {
      attempt: 1,
      status: 'ok',
      retryDecision: 'none',
      durationMs: 3,
      usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 6, estimated: false },
    });
    const entry: Entry = { ...e, sessionId: 's/1', entryId: 2, provenanceKey: e.provenanceKey ?? null, meta: e.meta ?? {}, createdAt: 0 };
    assert.deepStrictEqual(tokenUsageProjection.apply(tokenUsageProjection.init(), entry), { attempts: 1, inputTokens: 10, outputTokens: 4, cachedTokens: 6 });
  });
});
