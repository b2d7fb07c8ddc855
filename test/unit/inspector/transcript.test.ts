import * as assert from 'assert';
import { LAST_PAGE, TEXT_MAX, Transcript } from '../../../src/inspector/transcript';
import { transcriptItem, type TranscriptItem } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { anchor, fixtureStore, markerStore, message, retraction, toolCall } from './helpers';

/** Every item, as one page from the start. */
const all = (t: Transcript, sessionId: string): TranscriptItem[] => t.page(sessionId, 0, Number.MAX_SAFE_INTEGER).items;
const brief = (items: TranscriptItem[]) =>
  items.map((i) => ({ messageId: i.messageId, entryId: i.entryId, status: i.status, markers: i.markers, entryIds: i.entryIds }));

describe('inspector transcript', () => {
  it('marks revised, retracted, compacted, merged, pending and error messages', async () => {
    const store = await markerStore();
    const items = all(new Transcript(store), 's');
    for (const i of items) transcriptItem.parse(i);
    assert.deepStrictEqual(brief(items), [
      { messageId: 'm1', entryId: 2, status: 'sent', markers: ['compacted'], entryIds: [2] },
      { messageId: 'm2', entryId: 4, status: 'sent', markers: ['revised', 'compacted'], entryIds: [3, 4, 5, 6] },
      { messageId: 'm3', entryId: 7, status: 'sent', markers: ['retracted'], entryIds: [7, 8] },
      { messageId: 'm4', entryId: 10, status: 'sent', markers: ['merged'], entryIds: [10] },
      { messageId: 'm5', entryId: 11, status: 'pending', markers: ['pending'], entryIds: [11] },
      { messageId: 'm6', entryId: 12, status: 'error', markers: ['error'], entryIds: [12] },
    ]);
    assert.deepStrictEqual(items[1].toolCalls, [
      { entryId: 5, name: 'read_file', summary: 'read_file {"path":"a.txt"}', resultStatus: 'ok', resultEntryId: 6 },
    ]);
    assert.strictEqual(items[1].text, 'partial answer');
    assert.strictEqual(items[2].text, 'oops');
  });

  it('a retracted message revised again is back, still revised; its calls show', async () => {
    const store = await markerStore();
    await store.appendMany('s', [message('m3', 'user', 3, 'oops, again'), toolCall('m3', 'c9', 'list_dir', { path: '.' })]);
    const m3 = all(new Transcript(store), 's').find((i) => i.messageId === 'm3');
    assert.deepStrictEqual(
      m3 && { entryId: m3.entryId, markers: m3.markers, entryIds: m3.entryIds, text: m3.text, calls: m3.toolCalls.map((c) => [c.entryId, c.resultStatus]) },
      {
        entryId: 13,
        markers: ['revised'],
        entryIds: [7, 8, 13, 14],
        text: 'oops, again',
        calls: [[14, null]],
      },
    );
  });

  it('cuts text at 4,000 characters', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [message('long', 'user', 1, 'é'.repeat(TEXT_MAX + 5)), message('short', 'user', 2, 'ok')]);
    const [long, short] = all(new Transcript(store), 's');
    assert.deepStrictEqual([long.text.length, long.cut, short.cut], [TEXT_MAX, true, false]);
  });

  it('after an append, only the touched items; a new compaction, or its undo, changes every item', async () => {
    const store = await markerStore();
    const t = new Transcript(store);
    all(t, 's');
    await store.appendMany('s', [message('m5', 'assistant', 5, 'streamed in full')]);
    const before = all(t, 's');
    assert.deepStrictEqual(brief(t.changedSince('s', 12)), [{ messageId: 'm5', entryId: 13, status: 'sent', markers: ['revised'], entryIds: [11, 13] }]);
    await store.append('s', { kind: 'event', name: 'turn/end', payload: { name: 'turn/end', data: {} } });
    assert.deepStrictEqual(t.changedSince('s', 13), []);
    await store.append('s', anchor('compaction/auto', { summary: 'All of it.', cursorOrderSeq: 6 }));
    const every = t.changedSince('s', 14);
    assert.strictEqual(every.length, 6);
    assert.deepStrictEqual(
      every.map((i) => i.markers.includes('compacted')),
      [true, true, true, true, true, true],
    );
    // An undo of it puts the marks back as the anchor before it (the store's own) gave them.
    await store.append('s', { kind: 'event', name: 'compaction/undo', payload: { name: 'compaction/undo', data: { anchorEntryId: 15 } } });
    const back = t.changedSince('s', 15);
    assert.deepStrictEqual(
      back.map((i) => i.markers.includes('compacted')),
      before.map((i) => i.markers.includes('compacted')),
    );
    assert.ok(back.some((i) => !i.markers.includes('compacted')));
  });

  it('the sample tape: pending revisions then sent, messages before the handoff compacted', async () => {
    const store = await fixtureStore();
    const items = all(new Transcript(store), 'inspector-sample');
    assert.deepStrictEqual(
      brief(items).map(({ entryId, status, markers, entryIds }) => ({ entryId, status, markers, entryIds })),
      [
        { entryId: 4, status: 'sent', markers: ['compacted'], entryIds: [4] },
        { entryId: 10, status: 'sent', markers: ['revised', 'compacted'], entryIds: [6, 7, 8, 10, 11, 12, 13, 15] },
        { entryId: 18, status: 'sent', markers: [], entryIds: [18] },
        { entryId: 22, status: 'sent', markers: ['revised'], entryIds: [20, 22, 23, 24] },
      ],
    );
    assert.strictEqual(items[1].text, 'Looking at the notes now: <img src=x onerror=alert(1)> and a [link](javascript:alert(1)).');
    assert.deepStrictEqual(
      items[1].toolCalls.map((c) => [c.name, c.resultStatus, c.resultEntryId]),
      [
        ['read_file', 'ok', 13],
        ['tape_handoff', 'ok', 15],
      ],
    );
  });

  describe('pages', () => {
    /** 450 messages; every 37th retracted (one revised back), so pages cross retracted items. */
    async function longStore(): Promise<TapeStore> {
      const store = await TapeStore.inMemory();
      const entries = [];
      for (let n = 1; n <= 450; n++) {
        entries.push(message(`m${n}`, n % 2 ? 'user' : 'assistant', n, `text ${n}`));
        if (n % 37 === 0) entries.push(retraction(`m${n}`));
      }
      entries.push(message('m74', 'assistant', 74, 'text 74, again'));
      await store.appendMany('s', entries);
      return store;
    }

    it('the last page first; any page is the same slice of the whole, retracted items in their place', async () => {
      const store = await longStore();
      const t = new Transcript(store);
      const whole = all(t, 's');
      assert.strictEqual(whole.length, 450);
      assert.deepStrictEqual(
        whole.map((i) => i.messageId),
        Array.from({ length: 450 }, (_, i) => `m${i + 1}`),
      );
      assert.deepStrictEqual(
        whole.filter((i) => i.markers.includes('retracted')).map((i) => i.messageId),
        ['m37', 'm111', 'm148', 'm185', 'm222', 'm259', 'm296', 'm333', 'm370', 'm407', 'm444'],
      );
      const last = t.lastPage('s');
      assert.deepStrictEqual([last.offset, last.total, last.items.length], [450 - LAST_PAGE, 450, LAST_PAGE]);
      assert.deepStrictEqual(last.items, whole.slice(450 - LAST_PAGE));
      for (const [offset, limit] of [
        [0, 10],
        [30, 10],
        [36, 2],
        [100, 150],
        [440, 50],
        [449, 1],
      ]) {
        const p = t.page('s', offset, limit);
        assert.deepStrictEqual([p.offset, p.total, p.items], [offset, 450, whole.slice(offset, offset + limit)], `page ${offset}+${limit}`);
      }
      assert.deepStrictEqual(t.page('s', 500, 10), { offset: 450, total: 450, items: [] });
      assert.deepStrictEqual(t.lastPage('s', 1000).offset, 0);
    });

    it('a retraction appended later marks the message with all its earlier entries', async () => {
      const store = await markerStore();
      const t = new Transcript(store);
      t.lastPage('s');
      await store.append('s', retraction('m2'));
      assert.deepStrictEqual(brief(t.changedSince('s', 12)), [
        { messageId: 'm2', entryId: 4, status: 'sent', markers: ['revised', 'retracted', 'compacted'], entryIds: [3, 4, 5, 6, 13] },
      ]);
      assert.deepStrictEqual(
        t.changedSince('s', 12)[0].toolCalls.map((c) => [c.entryId, c.resultStatus]),
        [[5, 'ok']],
      );
      assert.strictEqual(t.lastPage('s').total, 6);
    });

    it('a new compaction re-marks the items from the first the page holds', async () => {
      const store = await longStore();
      const t = new Transcript(store);
      const head = store.headEntryId('s');
      await store.append('s', anchor('compaction/auto', { summary: 'Most of it.', cursorOrderSeq: 440 }));
      const changed = t.changedSince('s', head, 430);
      assert.deepStrictEqual(
        changed.map((i) => i.messageId),
        Array.from({ length: 20 }, (_, i) => `m${i + 431}`),
      );
      assert.deepStrictEqual(
        changed.map((i) => i.markers.includes('compacted')),
        Array.from({ length: 20 }, (_, i) => i + 431 <= 440),
      );
    });

    it("kept up to date as rows arrive: the same items as read afresh, in the fold's order", async () => {
      const store = await longStore();
      const t = new Transcript(store);
      t.lastPage('s');
      const batches = [
        [message('m451', 'user', 451, 'new at the end'), message('m452', 'assistant', 452, 'draft', 'pending')],
        [message('m452', 'assistant', 452, 'done'), message('early', 'user', 10.5, 'placed between m10 and m11')],
        [retraction('m200'), message('m37', 'user', 37, 'm37 back'), message('m5', 'user', 460, 'm5 moved to the end')],
        [message('m453', 'assistant', 453, 'never sent', 'pending'), retraction('m453'), message('m300', 'assistant', 300, 'ignored', 'pending')],
      ];
      for (const batch of batches) {
        const head = store.headEntryId('s');
        await store.appendMany('s', batch);
        const fresh = all(new Transcript(store), 's');
        assert.deepStrictEqual(all(t, 's'), fresh);
        const changed = t.changedSince('s', head);
        assert.deepStrictEqual(
          changed,
          fresh.filter((i) => changed.some((c) => c.messageId === i.messageId)),
          'changed items as the whole has them, in its order',
        );
      }
      const whole = all(t, 's');
      const early = whole.findIndex((i) => i.messageId === 'early');
      assert.deepStrictEqual(
        whole.slice(early - 1, early + 2).map((i) => i.messageId),
        ['m10', 'early', 'm11'],
      );
      assert.deepStrictEqual(
        whole.slice(-4).map((i) => [i.messageId, i.markers]),
        [
          ['m451', []],
          ['m452', ['revised']],
          ['m453', ['retracted', 'pending']],
          ['m5', ['revised']],
        ],
      );
      assert.deepStrictEqual(whole.find((i) => i.messageId === 'm37')?.markers, ['revised']);
      assert.deepStrictEqual(whole.find((i) => i.messageId === 'm200')?.markers, ['retracted']);
      assert.deepStrictEqual(whole.find((i) => i.messageId === 'm300')?.text, 'text 300', 'a pending version never replaces a sent one');
    });
  });
});
