import * as assert from 'assert';
import { SessionTitles } from '../../../src/inspector/sessionTitles';
import { TapeStore } from '../../../src/store/tapeStore';
import { runProjection, projectionView } from '../../../src/tape/projections/projection';
import { titleProjection } from '../../../src/tape/projections/title';
import { event, fixtureStore, message, retraction } from './helpers';

/** What the projection says over every entry: the titles must agree with it exactly. */
const projected = (store: TapeStore, sessionId: string) => projectionView(titleProjection, runProjection(titleProjection, store.entries(sessionId)));

describe('inspector session titles', () => {
  it('agree with the title projection as the session grows', async () => {
    const store = await TapeStore.inMemory();
    const titles = new SessionTitles(store);
    const steps = [
      [message('a1', 'assistant', 1, 'an assistant never names it')],
      [message('u1', 'user', 2, 'streaming', 'pending')],
      [message('u1', 'user', 2, '\n\n  first question  \nmore')],
      [message('u0', 'user', 0, 'x'.repeat(120))],
      [retraction('u0')],
      [message('u1', 'user', 2, 'revised question')],
      [retraction('u1')],
      [event('session/title', { title: '  ' })],
      [event('session/title', { title: 'Named' }), message('u2', 'user', 3, 'later')],
    ];
    const seen: (string | null)[] = [];
    for (const entries of steps) {
      await store.appendMany('s', entries);
      const title = titles.title('s');
      assert.strictEqual(title, projected(store, 's'));
      seen.push(title);
    }
    assert.deepStrictEqual(seen, [null, null, 'first question', `${'x'.repeat(79)}…`, 'first question', 'revised question', null, null, 'Named']);
  });

  it('the sample tape', async () => {
    const store = await fixtureStore();
    assert.strictEqual(new SessionTitles(store).title('inspector-sample'), projected(store, 'inspector-sample'));
  });
});
