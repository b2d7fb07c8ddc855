import * as assert from 'assert';
import { foldAll, type FoldRow } from '../../../src/tape/fold';
import { FoldCache, type FoldSource } from '../../../src/tape/foldCache';
import { TapeBuilder } from './tapeBuilder';

/** A source over in-memory tapes that records what the cache asked for. */
class FakeSource implements FoldSource {
  gen = 1;
  readonly reads: [string, number][] = [];
  constructor(readonly tapes: Map<string, TapeBuilder>) {}
  generation = () => this.gen;
  headEntryId = (sessionId: string) => this.tapes.get(sessionId)?.entries.length ?? 0;
  foldRows = (sessionId: string, after: number): FoldRow[] => {
    this.reads.push([sessionId, after]);
    return this.tapes.get(sessionId)!.rows().slice(after);
  };
}

describe('tape fold cache', () => {
  const setup = () => {
    const a = new TapeBuilder('a');
    a.user('u1', 'hello', { orderSeq: 1 });
    a.assistant('a1', 'typing', { status: 'pending', orderSeq: 2 });
    const b = new TapeBuilder('b');
    b.user('x', 'other session', { orderSeq: 1 });
    const source = new FakeSource(
      new Map([
        ['a', a],
        ['b', b],
      ]),
    );
    return { a, b, source, cache: new FoldCache(source) };
  };

  it('folds only the rows after its head, and reads nothing when the head has not moved', () => {
    const { a, source, cache } = setup();
    assert.deepStrictEqual(cache.view('a', { includePending: false }), foldAll(a.rows(), { includePending: false }));
    assert.deepStrictEqual(cache.view('a', { includePending: false }).headEntryId, 2);
    a.assistant('a1', 'done', { orderSeq: 2 });
    const v = cache.view('a', { includePending: false });
    assert.deepStrictEqual(v, foldAll(a.rows(), { includePending: false }));
    assert.deepStrictEqual(source.reads, [
      ['a', 0],
      ['a', 2],
    ]);
  });

  it('keeps separate folds per session and per pending mode', () => {
    const { a, b, cache } = setup();
    assert.deepStrictEqual(
      cache.view('a', { includePending: true }).messages.map((m) => m.messageId),
      ['u1', 'a1'],
    );
    assert.deepStrictEqual(
      cache.view('a', { includePending: false }).messages.map((m) => m.messageId),
      ['u1'],
    );
    assert.deepStrictEqual(cache.view('b', { includePending: false }), foldAll(b.rows(), { includePending: false }));
    assert.strictEqual(a.entries.length, 2);
  });

  it('refolds from scratch when the generation changes or the source went backwards', () => {
    const { a, source, cache } = setup();
    cache.view('a', { includePending: false });
    source.gen = 2;
    cache.view('a', { includePending: false });
    a.entries.pop();
    assert.deepStrictEqual(cache.view('a', { includePending: false }), foldAll(a.rows(), { includePending: false }));
    assert.strictEqual(cache.view('a', { includePending: false }).headEntryId, 1);
    assert.deepStrictEqual(source.reads, [
      ['a', 0],
      ['a', 0],
      ['a', 0],
    ]);
  });

  it('evicts the least recently used session beyond its bound', () => {
    const { source } = setup();
    const cache = new FoldCache(source, 1);
    cache.view('a', { includePending: false });
    cache.view('b', { includePending: false });
    cache.view('a', { includePending: false });
    assert.deepStrictEqual(source.reads, [
      ['a', 0],
      ['b', 0],
      ['a', 0],
    ]);
  });
});
