import * as assert from 'assert';
import { contextFrom } from '../../../src/tape/context';
import { validateNewEntry } from '../../../src/tape/entry';
import { foldAll } from '../../../src/tape/fold';
import { FoldCache } from '../../../src/tape/foldCache';
import { INTERRUPTED_OUTPUT, interruptedResultEntry, unpairedToolCalls } from '../../../src/tape/toolPairs';
import { TapeBuilder } from './tapeBuilder';

const final = { includePending: false };

/** A crash mid-turn: some calls answered, some not, and tool facts the fold does not show. */
function crashedTape(): TapeBuilder {
  const t = new TapeBuilder();
  t.user('u1', 'go', { orderSeq: 1 });
  t.assistant('a1', 'working', { orderSeq: 2 });
  t.call('a1', 'c1', 'read_file', { path: 'a' });
  t.call('a1', 'c2', 'grep', { q: 'b' });
  t.call('a1', 'c3', 'read_file', { path: 'c' });
  t.result('a1', 'c2', 'grep', 'found', 'error');
  t.assistant('gone', 'retracted turn', { orderSeq: 3 });
  t.call('gone', 'c1', 'grep', {});
  t.retract('gone');
  t.assistant('streaming', 'never finished', { status: 'pending', orderSeq: 4 });
  t.call('streaming', 'c1', 'grep', {});
  t.result('a1', 'c9', 'grep', 'a result without a call');
  return t;
}

describe('tape tool call/result pairs', () => {
  it('lists the effective calls without an effective result, in call order', () => {
    const view = foldAll(crashedTape().rows(), final);
    assert.deepStrictEqual(unpairedToolCalls(view), [
      { messageId: 'a1', toolCallId: 'c1', name: 'read_file', entryId: 3 },
      { messageId: 'a1', toolCallId: 'c3', name: 'read_file', entryId: 5 },
    ]);
    assert.deepStrictEqual(unpairedToolCalls(foldAll([], final)), []);
  });

  it('builds a valid error result with a key that depends on the call alone', () => {
    const [c1] = unpairedToolCalls(foldAll(crashedTape().rows(), final));
    const entry = interruptedResultEntry(c1);
    assert.deepStrictEqual(entry, {
      kind: 'tool_result',
      name: 'read_file',
      provenanceKey: 'interrupted/a1/c1',
      payload: { messageId: 'a1', toolCallId: 'c1', status: 'error', output: INTERRUPTED_OUTPUT },
    });
    assert.doesNotThrow(() => validateNewEntry(entry));
    assert.deepStrictEqual(interruptedResultEntry({ ...c1, entryId: 99 }), entry, 'a repair that runs again writes under the same key');
    const slashy = interruptedResultEntry({ messageId: 'a/b', toolCallId: 'c', name: 'x', entryId: 1 }).provenanceKey;
    assert.notStrictEqual(slashy, interruptedResultEntry({ messageId: 'a', toolCallId: 'b/c', name: 'x', entryId: 1 }).provenanceKey);
  });

  it('once the repair results are on the tape, nothing is unpaired and the context shows them as real results', () => {
    const t = crashedTape();
    for (const call of unpairedToolCalls(foldAll(t.rows(), final))) {
      const e = validateNewEntry(interruptedResultEntry(call));
      t.add(e.kind, e.name, e.payload);
    }
    assert.deepStrictEqual(unpairedToolCalls(foldAll(t.rows(), final)), []);
    const tools = contextFrom(new FoldCache(t), 's1', { kind: 'full' }, t.get).messages.filter((m) => m.role === 'tool');
    assert.deepStrictEqual(
      tools.map((m) => [m.source, m.entryId, m.toolCallId, m.content]),
      [
        ['tape', 13, 'c1', INTERRUPTED_OUTPUT],
        ['tape', 6, 'c2', 'found'],
        ['tape', 14, 'c3', INTERRUPTED_OUTPUT],
      ],
    );
  });

  it("a tape holding a stand-in written before the call's real result (or after it) gives the model the real one", () => {
    for (const order of ['stand-in first', 'real first']) {
      const t = new TapeBuilder();
      t.user('u1', 'go', { orderSeq: 1 });
      t.assistant('a1', 'running', { orderSeq: 2 });
      t.call('a1', 'c1', 'Bash', { command: 'make' });
      if (order === 'stand-in first') t.interrupted('a1', 'c1', 'Bash');
      const real = t.result('a1', 'c1', 'Bash', 'built');
      if (order === 'real first') t.interrupted('a1', 'c1', 'Bash');
      const tools = contextFrom(new FoldCache(t), 's1', { kind: 'full' }, t.get).messages.filter((m) => m.role === 'tool');
      assert.deepStrictEqual(
        tools.map((m) => [m.source, m.entryId, m.content]),
        [['tape', real.entryId, 'built']],
        order,
      );
      assert.deepStrictEqual(unpairedToolCalls(foldAll(t.rows(), final)), [], order);
    }
  });
});
