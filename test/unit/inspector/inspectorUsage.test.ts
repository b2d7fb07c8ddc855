import * as assert from 'assert';
import { InspectorController } from '../../../src/inspector/inspectorController';
import { hostToInspector, type HostToInspector } from '../../../src/protocol/inspector';
import { forkSession } from '../../../src/store/forks';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { NO_USAGE, type UsageFigures } from '../../../src/tape/usage/usageFigures';
import { message } from './helpers';
import { inspectorSource } from './inspectorSource';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const attempt = (inputTokens: number, outputTokens: number): NewEntry => ({
  kind: 'event',
  name: 'provider/attempt',
  payload: { name: 'provider/attempt', data: { usage: { inputTokens, outputTokens } } },
});
const figures = (requests: number, inputTokens: number, outputTokens: number): UsageFigures => ({ ...NO_USAGE, requests, inputTokens, outputTokens });

/** The page's side: what the controller posts, each message checked against the protocol. */
function page(store: TapeStore, sessionId: string): { c: InspectorController; take: () => HostToInspector[] } {
  const posted: HostToInspector[] = [];
  const c = new InspectorController(
    inspectorSource(store, 'mem', false),
    { post: (m) => posted.push(hostToInspector.parse(m)), copy: () => undefined, command: () => undefined },
    { sessionId, batchMs: 20 },
  );
  return { c, take: () => posted.splice(0) };
}
const usages = (posted: HostToInspector[]) => posted.flatMap((m) => (m.type === 'usage' ? [m] : []));

describe("inspector: the shown session's requests and tokens", () => {
  it('posts them own and rolled up after ready, again when the session or one below it makes a request, and not for other sessions', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('p', [message('m1', 'user', 1, 'plan it'), attempt(100, 10)]);
    await store.appendMany('other', [attempt(1, 1)]);
    const { c, take } = page(store, 'p');
    await c.handle({ type: 'ready' });
    assert.deepStrictEqual(usages(take()), [{ type: 'usage', sessionId: 'p', own: figures(1, 100, 10), rolledUp: figures(1, 100, 10), descendants: 0 }]);

    // A subagent starts (a new session: the tree is read again) and makes a request.
    const { childSessionId } = await startSubagent(store, 'p', { task: 'look' });
    await store.appendMany(childSessionId, [attempt(40, 4)]);
    await wait(80);
    assert.deepStrictEqual(
      usages(take()).map((u) => [u.own, u.rolledUp, u.descendants]),
      [[figures(1, 100, 10), figures(2, 140, 14), 1]],
    );
    // Its next request changes only the roll-up: a usage push, no appended (the shown session did not grow).
    await store.appendMany(childSessionId, [attempt(2, 1)]);
    await wait(80);
    assert.deepStrictEqual(
      take().map((m) => (m.type === 'usage' ? [m.type, m.rolledUp] : [m.type])),
      [['usage', figures(3, 142, 15)]],
    );
    // Another session's request, or a message of the shown one, changes nothing of it.
    await store.appendMany('other', [attempt(5, 5)]);
    await store.appendMany('p', [message('m2', 'assistant', 2, 'done')]);
    await wait(80);
    assert.deepStrictEqual(
      take().map((m) => m.type),
      ['appended'],
    );
    // A fork's requests roll up too; selecting the fork shows its own.
    const { forkSessionId } = await forkSession(store, 'p', { forkId: 'alt' });
    await store.appendMany(forkSessionId, [attempt(1000, 100)]);
    await wait(80);
    assert.deepStrictEqual(usages(take()).at(-1)?.rolledUp, figures(4, 1142, 115));
    await c.handle({ type: 'selectSession', sessionId: forkSessionId });
    assert.deepStrictEqual(usages(take()), [
      { type: 'usage', sessionId: forkSessionId, own: figures(1, 1000, 100), rolledUp: figures(1, 1000, 100), descendants: 0 },
    ]);
    c.dispose();
  });

  it('an ingested subagent counts once its link reaches the parent', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('claude-code:s', [attempt(10, 1)]);
    const { c, take } = page(store, 'claude-code:s');
    await c.handle({ type: 'ready' });
    take();
    // Its entries come first (the subagent's file), the link at its parent's Task call later.
    await store.appendMany('claude-code:s/agent-a', [attempt(3, 3)]);
    await wait(80);
    assert.deepStrictEqual(usages(take()), [], 'not below the parent yet');
    await linkSubagent(store, 'claude-code:s', 'claude-code:s/agent-a', 'completed');
    await wait(80);
    assert.deepStrictEqual(
      usages(take()).map((u) => [u.rolledUp, u.descendants]),
      [[figures(2, 13, 4), 1]],
    );
    c.dispose();
  });
});
