import { BACKFILLED_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { backfillSession } from '../../../src/agent/backfill';
import { TapeStore } from '../../../src/store/tapeStore';
import { FoldCache } from '../../../src/tape/foldCache';

describe('backfillSession: a session the host knows and the tape does not', () => {
  const turns = [
    { prompt: 'what does main.ts do?', response: 'It starts the server.' },
    { prompt: 'and the port?', response: '' },
  ];

  it('writes the exchanges as sent messages in order, marked backfilled, in one go', async () => {
    const store = await TapeStore.inMemory();
    assert.strictEqual(await backfillSession(store, 'chat-1', turns, 'test-history'), 2);
    const view = new FoldCache(store).view('chat-1', { includePending: false });
    assert.deepStrictEqual(
      view.messages.map((m) => [m.role, store.requireEntry('chat-1', m.entryId).payload.content, m.status]),
      [
        ['user', 'what does main.ts do?', 'sent'],
        ['assistant', 'It starts the server.', 'sent'],
        ['user', 'and the port?', 'sent'],
      ],
    );
    const marks = store.entries('chat-1').filter((e) => e.name === BACKFILLED_EVENT);
    assert.deepStrictEqual(
      marks.map((e) => e.payload.data),
      [{ source: 'test-history', turns: 2 }],
    );
  });

  it('runs once: a session already on the tape is left alone', async () => {
    const store = await TapeStore.inMemory();
    await backfillSession(store, 'chat-1', turns, 'h');
    const head = store.headEntryId('chat-1');
    assert.strictEqual(await backfillSession(store, 'chat-1', [...turns, { prompt: 'more', response: 'x' }], 'h'), 0);
    assert.strictEqual(store.headEntryId('chat-1'), head);
  });

  it('writes nothing without history', async () => {
    const store = await TapeStore.inMemory();
    assert.strictEqual(await backfillSession(store, 'chat-1', [], 'h'), 0);
    assert.deepStrictEqual(store.sessions(), []);
  });
});
