import * as assert from 'assert';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import type { HostToInspector } from '../../../src/protocol/inspector';
import { fixtureStore } from './helpers';
import { inspectorSource } from './inspectorSource';

const S = 'inspector-sample';

describe('inspector controller: an entry to reveal', () => {
  it('asked for before the page is ready, it is revealed once the page says ready, after the source; again after the page was unloaded', async () => {
    const posted: HostToInspector[] = [];
    const host: InspectorHost = { post: (m) => posted.push(m), copy: () => undefined, command: () => undefined };
    const c = new InspectorController(inspectorSource(await fixtureStore(), 'sample', true), host, { sessionId: S });
    c.reveal(7);
    assert.strictEqual(posted.length, 0, 'nothing is posted to a page that is not listening');
    await c.handle({ type: 'ready' });
    const types = posted.map((m) => m.type);
    assert.strictEqual(types[0], 'source');
    assert.deepStrictEqual(posted.at(-1), { type: 'reveal', entryId: 7 });
    assert.strictEqual(types.filter((t) => t === 'reveal').length, 1);
    posted.length = 0;
    c.reveal(9);
    assert.deepStrictEqual(posted, [{ type: 'reveal', entryId: 9 }], 'a ready page hears it at once');
    c.pageUnloaded();
    posted.length = 0;
    c.reveal(3);
    assert.strictEqual(posted.length, 0);
    await c.handle({ type: 'ready' });
    assert.deepStrictEqual(
      posted.filter((m) => m.type === 'reveal'),
      [{ type: 'reveal', entryId: 3 }],
      'only the one asked for while it was gone',
    );
    c.dispose();
  });
});
