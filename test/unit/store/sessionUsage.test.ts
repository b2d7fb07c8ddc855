import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { childrenBySession, forkSession, mergeFork } from '../../../src/store/forks';
import { sessionAgentOf } from '../../../src/store/sessionAgent';
import { sessionUsages } from '../../../src/store/sessionUsage';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { ingestedSessionStart } from '../../../src/tape/ingestedSession';
import { NO_USAGE, type UsageFigures } from '../../../src/tape/usage/usageFigures';
import { usageStats } from '../../../src/tape/usage/usageStats';
import { message } from './helpers';

const attempt = (inputTokens: number, outputTokens: number, cachedTokens = 0): NewEntry => ({
  kind: 'event',
  name: ATTEMPT_EVENT,
  payload: { name: ATTEMPT_EVENT, data: { usage: { inputTokens, outputTokens, cachedTokens } } },
});
const figures = (requests: number, inputTokens: number, outputTokens: number, cachedTokens = 0): UsageFigures => ({
  ...NO_USAGE,
  requests,
  inputTokens,
  outputTokens,
  cachedTokens,
});

/** A parent with two requests, a linked subagent with one, and a fork with one that was merged back. */
async function family(): Promise<{ store: TapeStore; child: string; fork: string }> {
  const store = await TapeStore.inMemory();
  await store.appendMany('p', [message('u1', 'plan it'), attempt(1000, 100, 400), attempt(2000, 200)]);
  const { childSessionId: child } = await startSubagent(store, 'p', { task: 'read the notes' });
  await store.appendMany(child, [attempt(50, 5)]);
  await linkSubagent(store, 'p', child, 'completed');
  const { forkSessionId: fork } = await forkSession(store, 'p', { forkId: 'alt' });
  await store.appendMany(fork, [message('u2', 'another way', { orderSeq: 2 }), attempt(7, 1)]);
  await mergeFork(store, fork);
  return { store, child, fork };
}

const usages = (store: TapeStore) =>
  sessionUsages(
    store,
    childrenBySession(store),
    store.sessions().map((s) => s.sessionId),
  );

describe('session usage on a store', () => {
  it("a parent's figures roll up its subagent and its merged fork, whose copies count once, in the fork", async () => {
    const { store, child, fork } = await family();
    assert.strictEqual(store.entries('p', { kind: 'event', name: ATTEMPT_EVENT }).length, 3, "the parent holds the merged fork's attempt too");
    const usage = usages(store);
    assert.deepStrictEqual(usage.get('p'), { own: figures(2, 3000, 300, 400), rolledUp: figures(4, 3057, 306, 400), descendants: 2 });
    assert.deepStrictEqual(usage.get(child), { own: figures(1, 50, 5), rolledUp: figures(1, 50, 5), descendants: 0 });
    assert.deepStrictEqual(usage.get(fork), { own: figures(1, 7, 1), rolledUp: figures(1, 7, 1), descendants: 0 });

    // agent-tape stats counts the same attempts once each.
    const stats = usageStats(
      store.sessions().map(({ sessionId }) => ({
        sessionId,
        agent: sessionAgentOf(store, sessionId),
        attempts: store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT }),
      })),
    );
    assert.deepStrictEqual(
      stats.totals.map((t) => [t.agent, t.requests, t.inputTokens, t.outputTokens, t.cachedTokens]),
      [['agent-tape', 4, 3057, 306, 400]],
    );
  });

  it('reads on from where it read each session last, and starts over when a session is deleted', async () => {
    const { store, child, fork } = await family();
    usages(store);
    const reads: { sessionId: string | null; from: number | undefined }[] = [];
    const entries = store.entries.bind(store);
    store.entries = (sessionId, filter = {}) => {
      if (filter.name === ATTEMPT_EVENT) reads.push({ sessionId, from: filter.fromEntryId });
      return entries(sessionId, filter);
    };
    const childHead = store.headEntryId(child);
    await store.appendMany(child, [attempt(10, 1)]);
    const grown = usages(store);
    assert.deepStrictEqual(reads, [{ sessionId: child, from: childHead + 1 }], 'only what the child gained');
    assert.deepStrictEqual(grown.get('p')?.rolledUp, figures(5, 3067, 307, 400));
    assert.deepStrictEqual(usages(store).get('p')?.rolledUp, figures(5, 3067, 307, 400), 'the same when asked again');
    reads.splice(0);
    await store.appendMany('other', [attempt(1, 1)]);
    await store.appendMany(child, [attempt(1, 1)]);
    const one = sessionUsages(store, childrenBySession(store), ['p']);
    assert.deepStrictEqual([...one.keys()], ['p']);
    assert.deepStrictEqual(one.get('p')?.rolledUp, figures(6, 3068, 308, 400));
    assert.deepStrictEqual(
      reads.map((r) => r.sessionId),
      [child],
      'asked for one session, only it and those below it are read',
    );

    await store.deleteSession(fork);
    const after = usages(store);
    assert.deepStrictEqual(after.get('p')?.own, figures(3, 3007, 301, 400), 'with the fork gone, its copies in the parent are the record and count there');
    assert.deepStrictEqual(after.get('p')?.rolledUp, figures(6, 3068, 308, 400));
  });

  it("a session's agent is its ingest format, else Agent Tape's own", async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('claude-code:abc', [ingestedSessionStart('claude-code:abc', 'claude-code'), attempt(1, 1)]);
    await store.appendMany('mine', [attempt(1, 1)]);
    assert.deepStrictEqual(
      ['claude-code:abc', 'mine'].map((s) => sessionAgentOf(store, s)),
      ['claude-code', 'agent-tape'],
    );
  });
});
