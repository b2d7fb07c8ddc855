import * as assert from 'assert';
import type { ReplyMessage, RequestMessage } from '../../../src/protocol/requestMap';
import { Messenger } from '../../../webview/messenger';
import { testRequests } from './testRequests';

const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (e: unknown) => ({ error: (e as Error).message }),
  );
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function messenger(timeoutMs?: number) {
  const sent: RequestMessage[] = [];
  const m = new Messenger(testRequests, (r) => sent.push(r), timeoutMs);
  const ok = (id: number, result: unknown): ReplyMessage => ({ type: 'reply', id, ok: true, result });
  return { m, sent, ok };
}

describe('webview messenger', () => {
  it('pairs concurrent requests with their replies when the host answers out of order', async () => {
    const { m, sent, ok } = messenger();
    const two = m.request('square', { n: 2 });
    const three = m.request('square', { n: 3 });
    const hi = m.request('echo', { text: 'hi' });
    assert.deepStrictEqual(sent, [
      { type: 'request', id: 1, method: 'square', params: { n: 2 } },
      { type: 'request', id: 2, method: 'square', params: { n: 3 } },
      { type: 'request', id: 3, method: 'echo', params: { text: 'hi' } },
    ]);
    m.receive(ok(3, 'hi'));
    m.receive(ok(2, { n: 3, square: 9 }));
    m.receive(ok(1, { n: 2, square: 4 }));
    assert.deepStrictEqual(await Promise.all([two, three, hi]), [{ n: 2, square: 4 }, { n: 3, square: 9 }, 'hi']);
  });

  it("rejects with the host's error reply", async () => {
    const { m } = messenger();
    const p = m.request('square', { n: 1 });
    m.receive({ type: 'reply', id: 1, ok: false, error: 'the tape has no session "x"' });
    assert.deepStrictEqual(await settled(p), { error: 'the tape has no session "x"' });
  });

  it("refuses a reply that does not match the method's reply schema", async () => {
    const { m, ok } = messenger();
    const p = m.request('square', { n: 2 });
    m.receive(ok(1, { n: 2, square: 'four' }));
    const outcome = await settled(p);
    assert.ok('error' in outcome, 'rejected');
    assert.match(outcome.error, /^unexpected reply to square from the extension: ✖ Invalid input.*\n {2}→ at square$/);
  });

  it('ignores a reply for an unknown id, and a second reply to an answered request', async () => {
    const { m, ok } = messenger();
    const p = m.request('echo', { text: 'a' });
    m.receive(ok(99, 'stray'));
    m.receive(ok(1, 'a'));
    m.receive(ok(1, 'again'));
    m.receive({ type: 'reply', id: 1, ok: false, error: 'late' });
    assert.deepStrictEqual(await settled(p), { value: 'a' });
  });

  it('a request without a reply times out, and its late reply is then ignored', async () => {
    const { m, ok } = messenger(20);
    const p = settled(m.request('echo', { text: 'slow' }));
    await wait(40);
    m.receive(ok(1, 'slow'));
    assert.deepStrictEqual(await p, { error: 'the extension did not answer echo within 0.02 s' });
  });

  it('a request that waits for the user has no timeout: its reply settles it however late', async () => {
    const { m, ok } = messenger(20);
    const p = settled(m.request('echo', { text: 'confirm?' }, { waitsForUser: true }));
    await wait(40);
    m.receive(ok(1, 'confirmed'));
    assert.deepStrictEqual(await p, { value: 'confirmed' });
  });

  it('a post that throws (the page is going away) rejects the request', async () => {
    const m = new Messenger(testRequests, () => {
      throw new Error('disposed');
    });
    assert.deepStrictEqual(await settled(m.request('echo', { text: 'x' })), { error: 'disposed' });
  });
});
