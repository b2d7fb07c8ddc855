import * as assert from 'assert';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import { lineageView } from '../../../src/inspector/lineageView';
import { SessionTitles } from '../../../src/inspector/sessionTitles';
import { Transcript } from '../../../src/inspector/transcript';
import {
  hostToInspector,
  inspectorRequests,
  lineageView as lineageSchema,
  transcriptItem,
  type HostToInspector,
  type TranscriptItem,
} from '../../../src/protocol/inspector';
import { discardFork, forkSession, mergeFork } from '../../../src/store/forks';
import { readerOf } from '../../../src/store/lineage';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { event, message } from './helpers';
import { inspectorSource } from './inspectorSource';

const P = 'parent';
const turn = (name: 'turn/start' | 'turn/end', turnId: string) => event(name, { turnId });

/**
 * A parent with two turns (entries 2-5 and 6-9), forked at its head as "f1" (two messages of its
 * own, merged back after the parent moved on) and "f2" (discarded), and a linked subagent.
 * Parent: 1 session/start, 2 turn/start t1, 3 m1 user, 4 m2 assistant, 5 turn/end t1,
 * 6 turn/start t2, 7 m3 user, 8 m4 assistant, 9 turn/end t2.
 */
async function family() {
  const store = await TapeStore.inMemory();
  await store.appendMany(P, [
    turn('turn/start', 't1'),
    message('m1', 'user', 1, 'plan the parser'),
    message('m2', 'assistant', 2, 'here is a plan'),
    turn('turn/end', 't1'),
    turn('turn/start', 't2'),
    message('m3', 'user', 3, 'now the lexer'),
    message('m4', 'assistant', 4, 'lexer done'),
    turn('turn/end', 't2'),
  ]);
  const f1 = await forkSession(store, P, { forkId: 'f1' });
  await store.appendMany(f1.forkSessionId, [message('m5', 'user', 5, 'try a risky rewrite'), message('m6', 'assistant', 6, 'rewritten')]);
  const f2 = await forkSession(store, P, { at: 5, forkId: 'f2' });
  await store.appendMany(P, [message('m7', 'user', 5, 'meanwhile, docs')]);
  const merge = await mergeFork(store, f1.forkSessionId);
  await discardFork(store, f2.forkSessionId, 'went nowhere');
  const { childSessionId } = await startSubagent(store, P, { task: 'count the tests', tools: ['read_file'] });
  await store.appendMany(childSessionId, [message('c1', 'assistant', 1, '42 tests')]);
  await linkSubagent(store, P, childSessionId, 'completed', '42 tests');
  return { store, f1: f1.forkSessionId, f2: f2.forkSessionId, child: childSessionId, merge };
}

const brief = (items: TranscriptItem[]) =>
  items.map((i) => ({ messageId: i.messageId, entryId: i.entryId, markers: i.markers, origin: i.origin, forkAt: i.forkAt }));

describe('inspector: forks, merges and subagents', () => {
  it('the lineage view of a parent: its forks and subagent with their states and receipts in words', async () => {
    const { store, f1, f2, child, merge } = await family();
    const view = lineageSchema.parse(lineageView(store, readerOf(store), new SessionTitles(readerOf(store)), P));
    assert.deepStrictEqual(view.ancestors, [{ sessionId: P, title: 'plan the parser', relation: 'root', at: null }]);
    assert.deepStrictEqual(
      view.children.map((c) => [c.sessionId, c.relation, c.state, c.receiptEntryId]),
      [
        [f1, 'fork', 'merged', merge.receiptEntryId],
        [f2, 'fork', 'discarded', merge.receiptEntryId + 1],
        [child, 'subagent', 'linked', merge.receiptEntryId + 2],
      ],
    );
    assert.strictEqual(view.children[0].receipt, 'Merged fork "f1" up to its #4: 2 entries; the parent had moved on (#9 at the fork, #10 at the merge).');
    assert.strictEqual(view.children[1].receipt, 'Discarded fork "f2" at its #2: went nowhere');
    assert.strictEqual(view.children[2].receipt, `Linked subagent ${child} (completed), frozen at #3. 42 tests`);
    assert.deepStrictEqual(
      view.receipts.map((r) => [r.entryId, r.name, r.aboutSessionId]),
      [
        [merge.receiptEntryId, 'fork/merge', f1],
        [merge.receiptEntryId + 1, 'fork/discard', f2],
        [merge.receiptEntryId + 2, 'subagent/linked', child],
      ],
    );
  });

  it('the lineage view of a fork and of a subagent: the chain from the root with the fork point, and their start in words', async () => {
    const { store, f2, child } = await family();
    const titles = new SessionTitles(readerOf(store));
    const fork = lineageView(store, readerOf(store), titles, f2);
    assert.deepStrictEqual(
      fork.ancestors.map((a) => [a.sessionId, a.relation, a.at]),
      [
        [P, 'root', null],
        [f2, 'fork', 5],
      ],
    );
    assert.deepStrictEqual(fork.children, []);
    // The fork reads its parent through: its fork/start sits after the parent's entries 1-5.
    assert.deepStrictEqual(
      fork.receipts.map((r) => [r.entryId, r.name, r.summary]),
      [[6, 'fork/start', `Forked as "f2" from ${P} at #5.`]],
    );
    const sub = lineageView(store, readerOf(store), titles, child);
    assert.deepStrictEqual(
      sub.ancestors.map((a) => [a.sessionId, a.relation]),
      [
        [P, 'root'],
        [child, 'subagent'],
      ],
    );
    assert.deepStrictEqual(
      sub.receipts.map((r) => r.summary),
      [`Subagent of ${P}. Task: count the tests Tools: read_file.`],
    );
  });

  it("a fork's transcript: the parent's messages up to the fork point marked as read through, then its own; forks never cut a turn", async () => {
    const { store, f1 } = await family();
    const items = new Transcript(readerOf(store)).page(f1, 0, 100).items;
    for (const i of items) transcriptItem.parse(i);
    assert.deepStrictEqual(brief(items), [
      { messageId: 'm1', entryId: 3, markers: ['inherited'], origin: { via: 'parent', sessionId: P, entryId: 3 }, forkAt: 5 },
      { messageId: 'm2', entryId: 4, markers: ['inherited'], origin: { via: 'parent', sessionId: P, entryId: 4 }, forkAt: 5 },
      { messageId: 'm3', entryId: 7, markers: ['inherited'], origin: { via: 'parent', sessionId: P, entryId: 7 }, forkAt: 9 },
      { messageId: 'm4', entryId: 8, markers: ['inherited'], origin: { via: 'parent', sessionId: P, entryId: 8 }, forkAt: 9 },
      { messageId: 'm5', entryId: 11, markers: [], origin: undefined, forkAt: 11 },
      { messageId: 'm6', entryId: 12, markers: [], origin: undefined, forkAt: 12 },
    ]);
  });

  it("the parent's transcript after the merge: the fork's messages after its own, each marked with where it was merged from", async () => {
    const { store, f1 } = await family();
    const items = new Transcript(readerOf(store)).page(P, 0, 100).items;
    assert.deepStrictEqual(
      items.map((i) => [i.messageId, i.markers, i.origin]),
      [
        ['m1', [], undefined],
        ['m2', [], undefined],
        ['m3', [], undefined],
        ['m4', [], undefined],
        ['m7', [], undefined],
        ['m5', ['merged'], { via: 'merge', sessionId: f1, entryId: 3 }],
        ['m6', ['merged'], { via: 'merge', sessionId: f1, entryId: 4 }],
      ],
    );
  });

  it("the controller: a fork's entry read through is shown as its parent stores it; lineage on request; the replay cursor only for the session shown", async () => {
    const { store, f1 } = await family();
    const posted: HostToInspector[] = [];
    const host: InspectorHost = { post: (m) => posted.push(hostToInspector.parse(m)), copy: () => undefined, command: () => undefined };
    const c = new InspectorController(inspectorSource(store, 'tape', false), host, { sessionId: f1 });
    await c.handle({ type: 'ready' });
    posted.splice(0);
    await c.handle({ type: 'request', id: 1, method: 'entry', params: { entryId: 3 } });
    const reply = posted.pop();
    assert.ok(reply?.type === 'reply' && reply.ok && reply.id === 1, JSON.stringify(reply));
    const entry = inspectorRequests.entry.reply.parse(reply.result);
    assert.deepStrictEqual(JSON.parse(entry.entry), { ...JSON.parse(entry.entry), sessionId: P, entryId: 3 });
    await c.handle({ type: 'request', id: 2, method: 'lineage', params: {} });
    const lineageReply = posted.pop();
    assert.ok(lineageReply?.type === 'reply' && lineageReply.ok && lineageReply.id === 2, JSON.stringify(lineageReply));
    const lineage = inspectorRequests.lineage.reply.parse(lineageReply.result);
    assert.deepStrictEqual([lineage.sessionId, lineage.view.ancestors.map((a) => a.sessionId)], [f1, [P, f1]]);
    c.cursor(P, 4);
    assert.deepStrictEqual(posted, [], 'another session than the one shown');
    c.cursor(f1, 11);
    c.cursor(f1, null);
    assert.deepStrictEqual(posted, [
      { type: 'cursor', sessionId: f1, entryId: 11 },
      { type: 'cursor', sessionId: f1, entryId: null },
    ]);
    c.dispose();
  });
});
