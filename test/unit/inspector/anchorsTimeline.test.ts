import * as assert from 'assert';
import { anchorItems } from '../../../src/inspector/anchorsTimeline';
import { anchorItem } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { anchor, fixtureStore, message } from './helpers';

describe('inspector anchors timeline', () => {
  it('lists every anchor; the last reconstruction anchor is in force and only those have a checkpoint', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('m1', 'user', 1, 'hi'),
      anchor('compaction/manual', { summary: 'Said hi.', cursorOrderSeq: 1 }),
      anchor('handoff/next', { summary: 'Continue with tests.', state: { files: ['a.ts'] } }),
      anchor('memory/note', { text: 'not a checkpoint' }),
    ]);
    const items = anchorItems(store, 's');
    for (const i of items) anchorItem.parse(i);
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.name, i.inForce]),
      [
        [1, 'session/start', false],
        [3, 'compaction/manual', false],
        [4, 'handoff/next', true],
        [5, 'memory/note', false],
      ],
    );
    assert.deepStrictEqual(
      items.map((i) => i.checkpoint),
      [
        null,
        '[Checkpoint compaction/manual at entry 3: the conversation before this point is summarised here.]\n\nSaid hi.',
        '[Checkpoint handoff/next at entry 4: the conversation before this point is summarised here.]\n\nContinue with tests.\n\nState:\nstate:\n  files:\n    - a.ts',
        null,
      ],
    );
    assert.strictEqual(items[2].state, JSON.stringify({ summary: 'Continue with tests.', state: { files: ['a.ts'] } }, null, 2));
  });

  it('the sample tape: its handoff is in force', async () => {
    const store = await fixtureStore();
    const items = anchorItems(store, 'inspector-sample');
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.name, i.inForce]),
      [
        [1, 'session/start', false],
        [14, 'handoff/notes-read', true],
      ],
    );
    assert.strictEqual(
      items[1].checkpoint,
      '[Checkpoint handoff/notes-read at entry 14: the conversation before this point is summarised here.]\n\nThe user asked about notes.md; it says to build with esbuild.',
    );
  });
});
