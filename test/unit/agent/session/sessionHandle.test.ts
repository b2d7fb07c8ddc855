import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ScriptedModel } from '../../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../../src/agent/session/openTape';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { NewEntry } from '../../../../src/tape/entry';

const MODEL = { id: 'scripted', vendor: 'test', contextWindow: 32_000, maxOutput: 1_000 };
const message = (role: 'user' | 'assistant', orderSeq: number, content: string): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId: `m${orderSeq}`, role, status: 'sent', orderSeq, content },
});

describe('SessionHandle (the one door to a session)', () => {
  let store: TapeStore;
  let tape: OpenTape;
  beforeEach(async () => {
    store = await TapeStore.inMemory();
    tape = new OpenTape(store);
    await store.appendMany('p', [message('user', 1, 'fix the build'), message('assistant', 2, 'on it')]);
  });
  afterEach(() => store.close());

  it('hands out sessions sharing one reader and fold cache', () => {
    const a = tape.session('p');
    const b = tape.session('q');
    assert.strictEqual(a.reader, b.reader);
    assert.strictEqual(a.folds, b.folds);
    assert.strictEqual(a.store, store);
  });

  it('hands off durably: the anchor is appended with durable: true and read back', async () => {
    const durable: (boolean | undefined)[] = [];
    const append = store.append.bind(store);
    store.append = (sessionId, entry, options) => (durable.push(options?.durable), append(sessionId, entry, options));
    const anchor = await tape.session('p').handoff('phase-2', ' the parser is done ', { next: 'cli' });
    assert.deepStrictEqual(durable, [true]);
    assert.strictEqual(anchor.entryId, 4);
    assert.deepStrictEqual(store.getEntry('p', 4)?.payload, { name: 'handoff/phase-2', state: { summary: 'the parser is done', state: { next: 'cli' } } });
  });

  it("the tape tools' handoff goes through the same durable append", async () => {
    const durable: (boolean | undefined)[] = [];
    const append = store.append.bind(store);
    store.append = (sessionId, entry, options) => (durable.push(options?.durable), append(sessionId, entry, options));
    await tape.session('p').tapePort().handoff('next', 'go on');
    assert.deepStrictEqual(durable, [true]);
  });

  it('compacts manually: a compaction/manual anchor after the context in force', async () => {
    const outcome = await tape.session('p').compact(new ScriptedModel([[{ text: 'Goal: fix the build' }]], MODEL), new AbortController().signal);
    assert.ok('anchor' in outcome);
    assert.strictEqual(outcome.anchor.name, 'compaction/manual');
    assert.strictEqual(store.getEntry('p', outcome.anchor.entryId)?.name, 'compaction/manual');
  });

  it('reads a fork in view positions: its entries numbered on from the parent', async () => {
    const parent = tape.session('p');
    const receipt = await parent.fork({ forkId: 'try' });
    const fork = tape.session(receipt.forkSessionId);
    // Parent 1..3 (session/start, two messages), then fork/start at 4.
    assert.strictEqual(fork.head(), 4);
    assert.strictEqual(fork.entry(2)?.name, 'message/user');
    assert.strictEqual(fork.entry(4)?.name, 'fork/start');
    const anchor = await fork.handoff('in-fork', 'tried it');
    assert.strictEqual(anchor.entryId, 5, "the position in the fork's view, not the stored id 3");
    assert.strictEqual(store.getEntry(receipt.forkSessionId, 3)?.name, 'handoff/in-fork');
    assert.strictEqual(fork.entry(5)?.name, 'handoff/in-fork');
    assert.deepStrictEqual(
      fork
        .view({ includePending: false })
        .anchors.map((a) => [a.entryId, a.name])
        .at(-1),
      [5, 'handoff/in-fork'],
    );
    await store.append(receipt.forkSessionId, message('user', 3, 'now the tests'));
    const compacted = await fork.compact(new ScriptedModel([[{ text: 'Goal: try' }]], MODEL), new AbortController().signal);
    assert.ok('anchor' in compacted);
    assert.strictEqual(compacted.anchor.entryId, 7, 'after the message at position 6 (stored 4)');
    assert.strictEqual(fork.entry(7)?.name, 'compaction/manual');
  });

  it('merges, discards, deletes and exports through the store', async () => {
    const parent = tape.session('p');
    const merged = tape.session((await parent.fork({ forkId: 'a' })).forkSessionId);
    await merged.handoff('done', 'merged work');
    const receipt = await merged.merge();
    assert.strictEqual(receipt.mergedCount, 1);
    assert.strictEqual(store.getEntry('p', receipt.receiptEntryId)?.name, 'fork/merge');
    const dropped = tape.session((await parent.fork({ forkId: 'b' })).forkSessionId);
    const discard = await dropped.discard('dead end');
    assert.strictEqual(store.getEntry('p', discard.receiptEntryId)?.name, 'fork/discard');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-handle-'));
    try {
      const file = path.join(dir, 'p.tape.jsonl');
      const { entries } = await parent.export(file);
      assert.strictEqual(entries, store.headEntryId('p'));
      assert.strictEqual(fs.readFileSync(file, 'utf8').trim().split('\n').length, entries);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepStrictEqual(await dropped.delete(), { entries: 2 });
    assert.strictEqual(dropped.head(), 0);
  });
});
