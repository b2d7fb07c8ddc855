import * as assert from 'assert';
import type { ReplyMessage } from '../../../src/protocol/requestMap';
import { RequestDispatcher } from '../../../src/protocol/requestDispatcher';
import { testRequests } from './testRequests';

function dispatcher() {
  const replies: ReplyMessage[] = [];
  let release = (): void => undefined;
  const slow = new Promise<void>((r) => (release = r));
  const d = new RequestDispatcher(
    testRequests,
    {
      square: async ({ n }) => {
        if (n < 0) throw new Error('no negative numbers');
        if (n === 0) await slow;
        return { n, square: n * n };
      },
      echo: ({ text }) => text,
    },
    (r) => replies.push(r),
  );
  return { d, replies, release };
}

describe('host request dispatcher', () => {
  it('answers each request with its handler’s reply under the request id, a slow one after a quick one', async () => {
    const { d, replies, release } = dispatcher();
    const slow = d.dispatch({ type: 'request', id: 1, method: 'square', params: { n: 0 } });
    await d.dispatch({ type: 'request', id: 2, method: 'echo', params: { text: 'hi' } });
    release();
    await slow;
    assert.deepStrictEqual(replies, [
      { type: 'reply', id: 2, ok: true, result: 'hi' },
      { type: 'reply', id: 1, ok: true, result: { n: 0, square: 0 } },
    ]);
  });

  it('an unknown method (Object.prototype names included) gets an error reply', async () => {
    const { d, replies } = dispatcher();
    await d.dispatch({ type: 'request', id: 1, method: 'cube', params: { n: 2 } });
    await d.dispatch({ type: 'request', id: 2, method: 'constructor', params: {} });
    assert.deepStrictEqual(replies, [
      { type: 'reply', id: 1, ok: false, error: 'unknown request "cube"' },
      { type: 'reply', id: 2, ok: false, error: 'unknown request "constructor"' },
    ]);
  });

  it('params that do not match the schema get an error reply and never reach the handler', async () => {
    const { d, replies } = dispatcher();
    await d.dispatch({ type: 'request', id: 1, method: 'square', params: { n: '2' } });
    await d.dispatch({ type: 'request', id: 2, method: 'echo', params: undefined });
    // zod's wording after "Invalid input" depends on whether a locale is loaded.
    assert.deepStrictEqual(
      replies.map((r) => [r.id, r.ok]),
      [
        [1, false],
        [2, false],
      ],
    );
    const [square, echo] = replies.map((r) => (r.ok ? '' : r.error));
    assert.match(square, /^malformed square request: ✖ Invalid input.*\n {2}→ at n$/);
    assert.match(echo, /^malformed echo request: ✖ Invalid input[^\n]*$/);
  });

  it('a handler that throws becomes an error reply with its message', async () => {
    const { d, replies } = dispatcher();
    await d.dispatch({ type: 'request', id: 5, method: 'square', params: { n: -1 } });
    assert.deepStrictEqual(replies, [{ type: 'reply', id: 5, ok: false, error: 'no negative numbers' }]);
  });
});
