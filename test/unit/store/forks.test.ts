import { FORK_MERGE, SUBAGENT_LINKED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import fc from 'fast-check';
import { discardFork, forkSession, forkStatus, lineageOf, childrenOf, mergeFork, parentOf } from '../../../src/store/forks';
import { readerOf } from '../../../src/store/lineage';
import { linkSubagent, readLinked, searchScoped, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { contextFrom } from '../../../src/tape/context';
import type { Entry, NewEntry } from '../../../src/tape/entry';
import { foldAll, foldRowOf } from '../../../src/tape/fold';
import { FoldCache } from '../../../src/tape/foldCache';
import { ForkRefusedError } from '../../../src/tape/fork';
import { randomTape } from '../tape/randomTape';
import { message } from './helpers';

const newEntry = ({ kind, name, payload }: Entry): NewEntry => ({ kind, name, payload });
const turn = (name: 'turn/start' | 'turn/end', turnId: string): NewEntry => ({ kind: 'event', name, payload: { name, data: { turnId } } });
const contents = (store: TapeStore, sessionId: string): string[] => {
  const reader = readerOf(store);
  return foldAll(reader.foldRows(sessionId, 0), { includePending: false }).messages.map((m) =>
    String(reader.requireEntry(sessionId, m.entryId).payload.content),
  );
};

/** A parent with two exchanges: entries 1 (session/start) to 5. */
async function parentTape(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  await store.appendMany('p', [
    message('u1', 'first question', { orderSeq: 1 }),
    message('a1', 'first answer', { role: 'assistant', orderSeq: 2 }),
    message('u2', 'second question', { orderSeq: 3 }),
    message('a2', 'second answer', { role: 'assistant', orderSeq: 4 }),
  ]);
  return store;
}

describe('fork, merge and discard (SPEC 2.8)', () => {
  it('SPEC 3.14: fork writes are invisible to the parent until merge; merge is idempotent and atomic', async () => {
    const store = await parentTape();
    const fork = await forkSession(store, 'p', { at: 3, forkId: 'try' });
    assert.deepStrictEqual(fork, { forkSessionId: 'p::fork::try', forkId: 'try', parentSessionId: 'p', parentHeadEntryId: 3 });
    assert.deepStrictEqual(
      store.entries('p::fork::try').map((e) => e.name),
      ['session/start', 'fork/start'],
    );
    // The fork reads the parent through up to the fork point, never a copy of it.
    assert.deepStrictEqual(contents(store, 'p::fork::try'), ['first question', 'first answer']);
    await store.appendMany('p::fork::try', [
      message('u9', 'other question', { orderSeq: 3 }),
      message('a9', 'other answer', { role: 'assistant', orderSeq: 4 }),
    ]);
    assert.deepStrictEqual(contents(store, 'p::fork::try'), ['first question', 'first answer', 'other question', 'other answer']);
    assert.strictEqual(readerOf(store).headEntryId('p::fork::try'), 6, 'positions: 3 of the parent, then fork/start and two entries');
    assert.deepStrictEqual(contents(store, 'p'), ['first question', 'first answer', 'second question', 'second answer'], 'the parent does not see the fork');
    const parentBefore = store.entries('p');

    const receipt = await mergeFork(store, 'p::fork::try');
    assert.deepStrictEqual(
      { ...receipt },
      {
        forkSessionId: 'p::fork::try',
        forkId: 'try',
        forkHeadEntryId: 4,
        mergedCount: 2,
        parentHeadAtFork: 3,
        parentHeadAtMerge: 5,
        parentMovedOn: true,
        orderSeqShift: 2,
        receiptEntryId: 8,
        alreadyMerged: false,
      },
    );
    const merged = store.entries('p', { fromEntryId: 6 });
    assert.deepStrictEqual(
      merged.map((e) => e.meta.mergedFrom ?? null),
      [{ sessionId: 'p::fork::try', entryId: 3 }, { sessionId: 'p::fork::try', entryId: 4 }, null],
    );
    assert.strictEqual(merged[2].name, FORK_MERGE);
    assert.deepStrictEqual(
      contents(store, 'p'),
      ['first question', 'first answer', 'second question', 'second answer', 'other question', 'other answer'],
      'moved after the parent’s own messages',
    );
    assert.deepStrictEqual(store.entries('p', { toEntryId: 5 }), parentBefore, 'no existing entry changed');

    const again = await mergeFork(store, 'p::fork::try');
    assert.deepStrictEqual(again, { ...receipt, alreadyMerged: true });
    assert.strictEqual(store.headEntryId('p'), 8, 'a second merge appends nothing');
    assert.strictEqual(forkStatus(store, 'p::fork::try'), 'merged');
  });

  it('SPEC 3.14: a merge that fails part way leaves the parent unchanged', async () => {
    const store = await parentTape();
    await forkSession(store, 'p', { forkId: 'f' });
    await store.appendMany('p::fork::f', [
      message('u3', 'ok one', { orderSeq: 5 }),
      message('bad', 'refused', { orderSeq: 6 }),
      message('u4', 'ok two', { orderSeq: 7 }),
    ]);
    // SQLite refuses the second merged entry, after validation has passed.
    (store as unknown as { c: { db: { run(sql: string): void } } }).c.db.run(
      "CREATE TEMP TRIGGER refuse BEFORE INSERT ON entries WHEN NEW.message_id = 'bad' AND NEW.session_id = 'p' BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
    );
    const before = store.entries('p');
    await assert.rejects(mergeFork(store, 'p::fork::f'), /refused by test/);
    assert.deepStrictEqual(store.entries('p'), before);
    assert.strictEqual(forkStatus(store, 'p::fork::f'), 'open');
  });

  it('a merge when the parent did not move on keeps orderSeq and says so', async () => {
    const store = await parentTape();
    await forkSession(store, 'p', { forkId: 'f' });
    await store.append('p::fork::f', message('u3', 'third', { orderSeq: 5 }));
    const r = await mergeFork(store, 'p::fork::f');
    assert.strictEqual(r.parentMovedOn, false);
    assert.strictEqual(r.orderSeqShift, 0);
    assert.strictEqual(r.parentHeadAtFork, r.parentHeadAtMerge);
    assert.strictEqual(store.requireEntry('p', 6).payload.orderSeq, 5);
  });

  it('SPEC 3.15: a discarded fork cannot be merged and its id cannot be reused', async () => {
    const store = await parentTape();
    await forkSession(store, 'p', { forkId: 'dead' });
    await store.append('p::fork::dead', message('u3', 'abandoned', { orderSeq: 5 }));
    const d = await discardFork(store, 'p::fork::dead', 'wrong path');
    assert.deepStrictEqual({ ...d }, { forkSessionId: 'p::fork::dead', forkId: 'dead', forkHeadEntryId: 3, reason: 'wrong path', receiptEntryId: 6 });
    assert.deepStrictEqual(await discardFork(store, 'p::fork::dead'), d, 'discarding twice returns the first receipt');
    const head = store.headEntryId('p');
    await assert.rejects(mergeFork(store, 'p::fork::dead'), (e: unknown) => e instanceof ForkRefusedError && /was discarded/.test(e.message));
    await assert.rejects(forkSession(store, 'p', { forkId: 'dead' }), (e: unknown) => e instanceof ForkRefusedError && /never reused/.test(e.message));
    assert.strictEqual(store.headEntryId('p'), head, 'refusals append nothing');
    // Fail closed even when the discarded fork's own session is gone: the receipt is on the parent.
    await store.deleteSession('p::fork::dead');
    await assert.rejects(forkSession(store, 'p', { forkId: 'dead' }), /never reused/);
    // A merged fork's id is not reused either, and a merged fork cannot be discarded.
    await forkSession(store, 'p', { forkId: 'kept' });
    await mergeFork(store, 'p::fork::kept');
    await assert.rejects(discardFork(store, 'p::fork::kept'), /already merged/);
    await assert.rejects(forkSession(store, 'p', { forkId: 'kept' }), /never reused/);
  });

  it('a fork inside an open turn is refused, with the points that would do', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('p', [
      turn('turn/start', 't1'),
      message('u1', 'q', { orderSeq: 1 }),
      message('a1', 'a', { role: 'assistant', orderSeq: 2 }),
      turn('turn/end', 't1'),
      turn('turn/start', 't2'),
      message('u2', 'q2', { orderSeq: 3 }),
    ]);
    await assert.rejects(
      forkSession(store, 'p', { at: 3 }),
      (e: unknown) => e instanceof ForkRefusedError && /inside turn "t1".*#1 \(before it\) or #5 \(its end\)/.test(e.message),
    );
    await assert.rejects(forkSession(store, 'p'), /inside turn "t2"/, 'the head is inside turn t2');
    assert.strictEqual((await forkSession(store, 'p', { at: 5, forkId: 'ok' })).parentHeadEntryId, 5);
    assert.deepStrictEqual(
      store
        .sessions()
        .map((s) => s.sessionId)
        .sort(),
      ['p', 'p::fork::ok'],
    );
  });

  it('a fork inside a turn just before one of its requests is allowed, and merges only once its own turn/end closes the turn', async () => {
    const store = await TapeStore.inMemory();
    const request = (turnId: string): NewEntry => ({ kind: 'event', name: 'view/assembled', payload: { name: 'view/assembled', data: {} }, meta: { turnId } });
    await store.appendMany('p', [
      turn('turn/start', 't1'),
      message('u1', 'q', { orderSeq: 1 }),
      request('t1'),
      message('a1', 'a', { role: 'assistant', orderSeq: 2 }),
      request('t1'),
      message('a2', 'b', { role: 'assistant', orderSeq: 3 }),
      turn('turn/end', 't1'),
      turn('turn/start', 't2'),
      message('u2', 'q2', { orderSeq: 4 }),
      request('t1'),
    ]);
    // Entry 4 and 6 are t1's requests; 11 is a request naming another turn than the one open there.
    assert.strictEqual((await forkSession(store, 'p', { at: 3, forkId: 'r1' })).parentHeadEntryId, 3);
    assert.strictEqual((await forkSession(store, 'p', { at: 5, forkId: 'r2' })).parentHeadEntryId, 5);
    await assert.rejects(forkSession(store, 'p', { at: 4 }), /inside turn "t1".*just before one of its requests/);
    await assert.rejects(forkSession(store, 'p', { at: 10 }), /inside turn "t2"/);
    assert.deepStrictEqual(contents(store, 'p::fork::r2'), ['q', 'a']);

    await store.append('p::fork::r1', message('x1', 'other answer', { role: 'assistant', orderSeq: 2 }));
    await assert.rejects(mergeFork(store, 'p::fork::r1'), /in the middle of turn "t1"/, 'the fork is still in the turn it started in');
    await store.append('p::fork::r1', turn('turn/end', 't1'));
    assert.strictEqual((await mergeFork(store, 'p::fork::r1')).mergedCount, 2);
  });

  it('refuses unknown sessions, points out of range, bad fork ids and merging what is not a fork', async () => {
    const store = await parentTape();
    await assert.rejects(forkSession(store, 'nope'), /no session "nope"/);
    await assert.rejects(forkSession(store, 'p', { at: 6 }), /entries are 1 to 5/);
    await assert.rejects(forkSession(store, 'p', { at: 0 }), /entries are 1 to 5/);
    await assert.rejects(forkSession(store, 'p', { forkId: 'a b' }), /fork id "a b"/);
    await assert.rejects(mergeFork(store, 'p'), /"p" is not a fork/);
    await assert.rejects(mergeFork(store, 'p::fork::zzz'), /no session/);
    assert.deepStrictEqual(
      store.sessions().map((s) => s.sessionId),
      ['p'],
    );
  });

  it('a fork of a fork reads both ancestors; context, search and lineage see through', async () => {
    const store = await parentTape();
    await forkSession(store, 'p', { forkId: 'a' });
    await store.append('p::fork::a', message('u3', 'zebra question', { orderSeq: 5 }));
    const inner = await forkSession(store, 'p::fork::a', { forkId: 'b' });
    assert.strictEqual(inner.parentHeadEntryId, 7);
    await store.append('p::fork::a::fork::b', message('a3', 'zebra answer', { role: 'assistant', orderSeq: 6 }));
    const reader = readerOf(store);
    assert.deepStrictEqual(contents(store, 'p::fork::a::fork::b'), [
      'first question',
      'first answer',
      'second question',
      'second answer',
      'zebra question',
      'zebra answer',
    ]);
    const ctx = contextFrom(new FoldCache(reader), 'p::fork::a::fork::b', { kind: 'last' }, (id) => reader.requireEntry('p::fork::a::fork::b', id));
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.content),
      ['first question', 'first answer', 'second question', 'second answer', 'zebra question', 'zebra answer'],
    );
    const hits = reader.search('zebra OR first', { sessionId: 'p::fork::a::fork::b' });
    assert.deepStrictEqual(
      hits.map((h) => reader.origin('p::fork::a::fork::b', h.entryId)).sort((x, y) => x.sessionId.localeCompare(y.sessionId) || x.entryId - y.entryId),
      [
        { sessionId: 'p', entryId: 2 },
        { sessionId: 'p', entryId: 3 },
        { sessionId: 'p::fork::a', entryId: 3 },
        { sessionId: 'p::fork::a::fork::b', entryId: 3 },
      ],
    );
    assert.ok(hits.every((h) => h.sessionId === 'p::fork::a::fork::b'));
    assert.deepStrictEqual(reader.search('zebra', { sessionId: 'p' }), [], 'the parent does not see its forks');
    assert.deepStrictEqual(lineageOf(store, 'p::fork::a::fork::b'), [
      { sessionId: 'p', relation: 'root', at: null },
      { sessionId: 'p::fork::a', relation: 'fork', at: 5 },
      { sessionId: 'p::fork::a::fork::b', relation: 'fork', at: 7 },
    ]);
    assert.deepStrictEqual(
      childrenOf(store, 'p').map((c) => [c.sessionId, c.state]),
      [['p::fork::a', 'open']],
      'only direct children',
    );
    // Merging the inner fork lands in the outer fork, which a merge then carries to the root.
    await mergeFork(store, 'p::fork::a::fork::b');
    await mergeFork(store, 'p::fork::a');
    assert.deepStrictEqual(contents(store, 'p').slice(-2), ['zebra question', 'zebra answer']);
  });

  it('property: after a merge the parent folds as its prefix plus the fork’s delta, and no existing entry changes', async () => {
    await fc.assert(
      fc.asyncProperty(randomTape(25), randomTape(25), randomTape(15), fc.nat(), async (parentEntries, forkEntries, laterEntries, pick) => {
        const store = await TapeStore.inMemory();
        const strip = (xs: Entry[]): NewEntry[] => xs.slice(1).map(newEntry); // each starts with session/start
        await store.appendMany('p', [message('first', 'the parent exists'), ...strip(parentEntries)]);
        const at = 1 + (pick % store.headEntryId('p'));
        const { forkSessionId } = await forkSession(store, 'p', { at, forkId: 'f' });
        await store.appendMany(forkSessionId, strip(forkEntries));
        await store.appendMany('p', strip(laterEntries));
        const before = { parent: store.entries('p'), fork: store.entries(forkSessionId) };
        const receipt = await mergeFork(store, forkSessionId);

        assert.deepStrictEqual(store.entries('p', { toEntryId: before.parent.length }), before.parent);
        assert.deepStrictEqual(store.entries(forkSessionId), before.fork);
        // Expected: the parent as it was, then the fork's own entries after fork/start, moved after the parent's orderSeq.
        const delta = before.fork.slice(2).map((e, i) => {
          const shifted = e.kind === 'message' ? { ...e.payload, orderSeq: (e.payload.orderSeq as number) + receipt.orderSeqShift } : e.payload;
          return { ...e, sessionId: 'p', entryId: before.parent.length + 1 + i, payload: shifted };
        });
        const expected = foldAll([...before.parent, ...delta].map(foldRowOf), { includePending: true });
        const actual = foldAll(store.foldRows('p', 0).slice(0, before.parent.length + delta.length), { includePending: true });
        assert.deepStrictEqual(actual.messages, expected.messages);
        assert.deepStrictEqual(actual.toolCalls, expected.toolCalls);
        assert.deepStrictEqual(actual.toolResults, expected.toolResults);
        assert.deepStrictEqual(actual.anchors, expected.anchors);
        assert.strictEqual(receipt.mergedCount, delta.length);
        assert.strictEqual(store.headEntryId('p'), before.parent.length + delta.length + 1, 'the delta and one receipt');
        await store.close();
      }),
      { numRuns: 60 },
    );
  });
});

describe('subagent links (SPEC 2.8)', () => {
  async function linked(): Promise<{ store: TapeStore; child: string }> {
    const store = await parentTape();
    const { childSessionId } = await startSubagent(store, 'p', { task: 'find the quokka' });
    await store.appendMany(childSessionId, [message('c1', 'quokka found in notes', { role: 'assistant', orderSeq: 1 })]);
    await linkSubagent(store, 'p', childSessionId, 'completed', 'found it');
    // Written after the link: the parent must not see it.
    await store.append(childSessionId, message('c2', 'quokka later', { role: 'assistant', orderSeq: 2 }));
    return { store, child: childSessionId };
  }

  it('SPEC 3.16: reads through a subagent link stop at the frozen head; non-direct children are refused', async () => {
    const { store, child } = await linked();
    assert.match(child, /^p::subagent::/);
    const link = store.entries('p', { kind: 'event', name: SUBAGENT_LINKED })[0].payload.data as Record<string, unknown>;
    assert.strictEqual(link.childHeadEntryId, 3);
    assert.strictEqual(link.outcome, 'completed');
    assert.deepStrictEqual(readLinked(store, 'p', child), { childSessionId: child, frozenHead: 3 });
    const hits = searchScoped(store, 'p', 'quokka', { scope: 'linked', limit: 10 });
    assert.deepStrictEqual(
      hits.map((h) => [h.sessionId, h.entryId]).sort(),
      [
        [child, 2],
        [child, 3],
      ],
      'the task anchor and the answer, not entry 4',
    );
    assert.deepStrictEqual(searchScoped(store, 'p', 'quokka', { scope: 'current', limit: 10 }), []);
    assert.strictEqual(searchScoped(store, 'p', 'quokka OR question', { scope: 'current_and_linked', limit: 10 }).length, 4);

    // A grandchild is readable from its own parent only.
    const { childSessionId: grandchild } = await startSubagent(store, child, { task: 'dig' });
    await linkSubagent(store, child, grandchild, 'failed');
    assert.throws(
      () => readLinked(store, 'p', grandchild),
      (e: unknown) => e instanceof ForkRefusedError && /only direct children/.test(e.message),
    );
    assert.deepStrictEqual(searchScoped(store, 'p', 'dig', { scope: 'linked', limit: 10 }), []);
    assert.deepStrictEqual(
      childrenOf(store, 'p').map((c) => [c.sessionId, c.relation, c.state]),
      [[child, 'subagent', 'linked']],
    );
    assert.deepStrictEqual(parentOf(store, grandchild), { sessionId: child, relation: 'subagent', at: null });
  });

  it('a link that would close a cycle is refused, the tape unchanged: to itself, to its parent, to its grandparent', async () => {
    const { store, child } = await linked();
    const { childSessionId: grandchild } = await startSubagent(store, child, { task: 'dig' });
    await linkSubagent(store, child, grandchild, 'completed');
    const heads = () => ['p', child, grandchild].map((s) => store.headEntryId(s));
    const before = heads();
    for (const [parent, to] of [
      ['p', 'p'],
      [child, 'p'],
      [grandchild, 'p'],
      [grandchild, child],
    ]) {
      await assert.rejects(
        linkSubagent(store, parent, to, 'completed'),
        (e: unknown) => e instanceof ForkRefusedError && e.message === `cannot link "${to}" to "${parent}": it is that session or one of its parents`,
      );
    }
    assert.deepStrictEqual(heads(), before);
  });

  it('SPEC 3.16: a missing, recreated or reset child fails closed', async () => {
    const { store, child } = await linked();
    await store.deleteSession(child);
    assert.throws(() => readLinked(store, 'p', child), /missing from the tape/);
    // Recreated under the same id, with as many entries: the frozen head's hash tells.
    await store.appendMany(child, [
      message('x', 'impostor', { orderSeq: 1 }),
      message('y', 'quokka impostor', { orderSeq: 2 }),
      message('z', 'more', { orderSeq: 3 }),
    ]);
    assert.throws(() => readLinked(store, 'p', child), /was recreated/);
    assert.deepStrictEqual(searchScoped(store, 'p', 'quokka', { scope: 'linked', limit: 10 }), []);
    await store.deleteSession(child);
    await store.append(child, message('x', 'short', { orderSeq: 1 }));
    assert.throws(() => readLinked(store, 'p', child), /was reset/);
  });
});
