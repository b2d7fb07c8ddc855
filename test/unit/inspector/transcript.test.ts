import * as assert from 'assert';
import { TEXT_MAX, Transcript } from '../../../src/inspector/transcript';
import { transcriptItem } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { anchor, fixtureStore, markerStore, message, toolCall } from './helpers';

const brief = (items: ReturnType<Transcript['items']>) => items.map((i) => ({ messageId: i.messageId, entryId: i.entryId, status: i.status, markers: i.markers, entryIds: i.entryIds }));

describe('inspector transcript', () => {
  it('marks revised, retracted, compacted, merged, pending and error messages', async () => {
    const store = await markerStore();
    const items = new Transcript(store).items('s');
    for (const i of items) transcriptItem.parse(i);
    assert.deepStrictEqual(brief(items), [
      { messageId: 'm1', entryId: 2, status: 'sent', markers: ['compacted'], entryIds: [2] },
      { messageId: 'm2', entryId: 4, status: 'sent', markers: ['revised', 'compacted'], entryIds: [3, 4, 5, 6] },
      { messageId: 'm3', entryId: 7, status: 'sent', markers: ['retracted'], entryIds: [7, 8] },
      { messageId: 'm4', entryId: 10, status: 'sent', markers: ['merged'], entryIds: [10] },
      { messageId: 'm5', entryId: 11, status: 'pending', markers: ['pending'], entryIds: [11] },
      { messageId: 'm6', entryId: 12, status: 'error', markers: ['error'], entryIds: [12] },
    ]);
    assert.deepStrictEqual(items[1].toolCalls, [{ entryId: 5, name: 'read_file', summary: 'read_file {"path":"a.txt"}', resultStatus: 'ok', resultEntryId: 6 }]);
    assert.strictEqual(items[1].text, 'partial answer');
    assert.strictEqual(items[2].text, 'oops');
  });

  it('a retracted message revised again is back, still revised; its calls show', async () => {
    const store = await markerStore();
    await store.appendMany('s', [message('m3', 'user', 3, 'oops, again'), toolCall('m3', 'c9', 'list_dir', { path: '.' })]);
    const m3 = new Transcript(store).items('s').find((i) => i.messageId === 'm3');
    assert.deepStrictEqual(m3 && { entryId: m3.entryId, markers: m3.markers, entryIds: m3.entryIds, text: m3.text, calls: m3.toolCalls.map((c) => [c.entryId, c.resultStatus]) }, {
      entryId: 13,
      markers: ['revised'],
      entryIds: [7, 8, 13, 14],
      text: 'oops, again',
      calls: [[14, null]],
    });
  });

  it('cuts text at 4,000 characters', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [message('long', 'user', 1, 'é'.repeat(TEXT_MAX + 5)), message('short', 'user', 2, 'ok')]);
    const [long, short] = new Transcript(store).items('s');
    assert.deepStrictEqual([long.text.length, long.cut, short.cut], [TEXT_MAX, true, false]);
  });

  it('after an append, only the touched items; a new compaction changes every item', async () => {
    const store = await markerStore();
    const t = new Transcript(store);
    t.items('s');
    await store.appendMany('s', [message('m5', 'assistant', 5, 'streamed in full')]);
    assert.deepStrictEqual(brief(t.changedSince('s', 12)), [{ messageId: 'm5', entryId: 13, status: 'sent', markers: ['revised'], entryIds: [11, 13] }]);
    await store.append('s', { kind: 'event', name: 'turn/end', payload: { name: 'turn/end', data: {} } });
    assert.deepStrictEqual(t.changedSince('s', 13), []);
    await store.append('s', anchor('compaction/auto', { summary: 'All of it.', cursorOrderSeq: 6 }));
    const all = t.changedSince('s', 14);
    assert.strictEqual(all.length, 6);
    assert.deepStrictEqual(all.map((i) => i.markers.includes('compacted')), [true, true, true, true, true, true]);
  });

  it('the sample tape: pending revisions then sent, messages before the handoff compacted', async () => {
    const store = await fixtureStore();
    const items = new Transcript(store).items('inspector-sample');
    assert.deepStrictEqual(brief(items).map(({ entryId, status, markers, entryIds }) => ({ entryId, status, markers, entryIds })), [
      { entryId: 4, status: 'sent', markers: ['compacted'], entryIds: [4] },
      { entryId: 10, status: 'sent', markers: ['revised', 'compacted'], entryIds: [6, 7, 8, 10, 11, 12, 13, 15] },
      { entryId: 18, status: 'sent', markers: [], entryIds: [18] },
      { entryId: 22, status: 'sent', markers: ['revised'], entryIds: [20, 22, 23, 24] },
    ]);
    assert.strictEqual(items[1].text, 'Looking at the notes now: <img src=x onerror=alert(1)> and a [link](javascript:alert(1)).');
    assert.deepStrictEqual(items[1].toolCalls.map((c) => [c.name, c.resultStatus, c.resultEntryId]), [['read_file', 'ok', 13], ['tape_handoff', 'ok', 15]]);
  });
});
