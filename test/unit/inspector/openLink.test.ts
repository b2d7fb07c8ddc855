import * as assert from 'assert';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import type { HostToInspector } from '../../../src/protocol/inspector';
import { fixtureStore } from './helpers';
import { inspectorSource } from './inspectorSource';

/** A host that records what it was asked to open, and answers as the user would. */
function host(answer: boolean | null): InspectorHost & { posted: HostToInspector[]; opened: string[] } {
  const posted: HostToInspector[] = [];
  const opened: string[] = [];
  return {
    posted,
    opened,
    post: (m) => posted.push(m),
    copy: () => undefined,
    command: () => undefined,
    ...(answer === null
      ? {}
      : {
          openExternal: async (url: string) => {
            opened.push(url);
            return answer;
          },
        }),
  };
}

const ask = async (h: ReturnType<typeof host>, id: number, url: unknown) => {
  const c = new InspectorController(inspectorSource(await fixtureStore(), 'x', true), h, { sessionId: 'inspector-sample' });
  await c.handle({ type: 'request', id, method: 'openLink', params: { url } });
  c.dispose();
  return h.posted.at(-1);
};

describe('inspector controller: openLink', () => {
  it('opens an http, https or mailto address through the host, normalised, and says whether it was opened', async () => {
    const yes = host(true);
    assert.deepStrictEqual(await ask(yes, 1, 'HTTPS://Example.com/a'), { type: 'reply', id: 1, ok: true, result: { opened: true } });
    assert.deepStrictEqual(await ask(yes, 2, 'mailto:me@example.com'), { type: 'reply', id: 2, ok: true, result: { opened: true } });
    assert.deepStrictEqual(yes.opened, ['https://example.com/a', 'mailto:me@example.com']);
    const declined = host(false);
    assert.deepStrictEqual(await ask(declined, 3, 'https://example.com/'), { type: 'reply', id: 3, ok: true, result: { opened: false } });
  });

  it('refuses any other scheme, a malformed request and a host that opens nothing, opening nothing', async () => {
    const h = host(true);
    for (const [id, url] of [
      [1, 'javascript:alert(1)'],
      [2, 'command:workbench.action.terminal.new'],
      [3, 'file:///etc/passwd'],
      [4, 'data:text/html,x'],
      [5, 'src/a.ts'],
      [6, 42],
      [7, `https://example.com/${'a'.repeat(9000)}`],
    ] as const) {
      const reply = await ask(h, id, url);
      assert.ok(reply?.type === 'reply' && !reply.ok && reply.id === id, JSON.stringify(reply));
    }
    assert.deepStrictEqual(h.opened, []);
    const reply = await ask(host(null), 8, 'https://example.com/');
    assert.ok(reply?.type === 'reply' && !reply.ok && /links do not open here/.test(reply.error), JSON.stringify(reply));
  });
});
