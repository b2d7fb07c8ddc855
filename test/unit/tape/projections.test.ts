import * as assert from 'assert';
import fc from 'fast-check';
import { renderCheckpoint } from '../../../src/tape/context';
import type { Entry } from '../../../src/tape/entry';
import { contextPressureProjection } from '../../../src/tape/projections/contextPressure';
import { builtinProjections, createProjectionRegistry } from '../../../src/tape/projections';
import { projectionView, ProjectionRegistry, ProjectionRunner, runProjection, type EntrySource, type Projection } from '../../../src/tape/projections/projection';
import { titleProjection } from '../../../src/tape/projections/title';
import { todosProjection } from '../../../src/tape/projections/todos';
import { tokenUsageProjection } from '../../../src/tape/projections/tokenUsage';
import { toolStatsProjection } from '../../../src/tape/projections/toolStats';
import { randomTape, splitPoints } from './randomTape';
import { TapeBuilder } from './tapeBuilder';

const viewAfter = <S, V>(p: Projection<S, V>, entries: Entry[]): V => projectionView(p, runProjection(p, entries));

class FakeEntrySource implements EntrySource {
  gen = 1;
  visible: number;
  readonly reads: number[] = [];
  constructor(readonly entries: Entry[]) {
    this.visible = entries.length;
  }
  generation = () => this.gen;
  headEntryId = () => this.visible;
  entriesAfter = (_sessionId: string, after: number): Entry[] => {
    this.reads.push(after);
    return this.entries.slice(after, this.visible);
  };
}

describe('tape projections', () => {
  it('every built-in returns the very same state for an entry that does not concern it', () => {
    const t = new TapeBuilder();
    const irrelevant = t.anchor('memory/x', {});
    for (const p of builtinProjections()) {
      const s = p.init();
      assert.strictEqual(p.apply(s, irrelevant), s, p.key);
    }
  });

  it('title: the first line of the first user message, clipped; a session/title event overrides it for good', () => {
    const t = new TapeBuilder();
    t.assistant('a0', 'greeting', { orderSeq: 0 });
    t.user('u1', `\n   ${'word '.repeat(30)}\nsecond line`, { orderSeq: 1 });
    t.user('u2', 'a later message', { orderSeq: 2 });
    const title = viewAfter(titleProjection, t.entries)!;
    assert.strictEqual(Array.from(title).length, 80);
    assert.ok(title.startsWith('word word') && title.endsWith('…'));
    assert.strictEqual(viewAfter(titleProjection, t.entries.slice(0, 1)), null);

    t.event('session/title', { title: '  Rename foo  ' });
    t.user('u3', 'more', { orderSeq: 3 });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'Rename foo');

    const short = new TapeBuilder();
    short.user('u1', 'Fix the 🐛 in parser', { orderSeq: 1 });
    assert.strictEqual(viewAfter(titleProjection, short.entries), 'Fix the 🐛 in parser');
  });

  it('todos: the last valid todo_write call wins; a malformed one keeps the list', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'planning', { orderSeq: 1 });
    t.call('a1', 'c1', 'todo_write', { todos: [{ id: 1, content: 'read', status: 'done' }, { id: 'b', content: 'write', status: 'pending' }] });
    t.call('a1', 'c2', 'other_tool', { todos: [] });
    const good = t.call('a1', 'c3', 'todo_write', { todos: [{ id: 1, content: 'read', status: 'done' }, { id: 'b', content: 'write', status: 'in_progress' }] });
    t.call('a1', 'c4', 'todo_write', { todos: [{ id: 2, content: 'x', status: 'finished' }] });
    assert.deepStrictEqual(viewAfter(todosProjection, t.entries), {
      todos: [{ id: '1', content: 'read', status: 'done' }, { id: 'b', content: 'write', status: 'in_progress' }],
      entryId: good.entryId,
    });
  });

  it('toolStats: calls, ok, error and pending per tool; a revised result moves between outcomes and counts once', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'x', { orderSeq: 1 });
    t.call('a1', 'c1', 'grep');
    t.call('a1', 'c2', 'grep');
    t.call('a1', 'c3', 'read_file');
    t.result('a1', 'c1', 'grep', 'boom', 'error');
    t.result('a1', 'c3', 'read_file', 'text');
    t.call('a1', 'c1', 'grep'); // a revised call row: still one call
    t.result('a1', 'c1', 'grep', 'fine', 'ok'); // the retry succeeded
    t.result('a2', 'c7', 'grep', 'orphan', 'ok'); // a result written before its call
    t.call('a2', 'c7', 'grep');
    assert.deepStrictEqual(viewAfter(toolStatsProjection, t.entries), {
      grep: { calls: 3, ok: 2, error: 0, pending: 1 },
      read_file: { calls: 1, ok: 1, error: 0, pending: 0 },
    });
  });

  it('tokenUsage: sums every provider attempt', () => {
    const t = new TapeBuilder();
    t.event('provider/attempt', { attempt: 1, status: 'error', usage: { inputTokens: 100, outputTokens: 0, cachedTokens: 0 } });
    t.event('provider/attempt', { attempt: 2, status: 'ok', usage: { inputTokens: 100, outputTokens: 40, cachedTokens: 80 } });
    t.event('provider/attempt', { attempt: 1, status: 'error' });
    t.event('turn/end', { usage: { inputTokens: 999 } });
    assert.deepStrictEqual(viewAfter(tokenUsageProjection, t.entries), { attempts: 3, inputTokens: 200, outputTokens: 40, cachedTokens: 80 });
  });

  it('contextPressure: estimates the default context (system, checkpoint, effective content after the cursor)', () => {
    const p = contextPressureProjection(100);
    const t = new TapeBuilder();
    t.system('x'.repeat(40)); // 10
    t.user('u1', 'y'.repeat(400), { orderSeq: 1 }); // 100
    t.assistant('a1', 'z'.repeat(40), { orderSeq: 2 }); // 10
    t.call('a1', 'c1', 'grep', 'q'.repeat(38)); // JSON string: 40 chars -> 10
    t.result('a1', 'c1', 'grep', 'r'.repeat(80)); // 20
    assert.deepStrictEqual(viewAfter(p, t.entries), { estimatedTokens: 150, contextWindow: 100, ratio: 1.5 });
    t.retract('a1');
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 110);
    const anchor = t.anchor('compaction/manual', { summary: 's'.repeat(28), cursorOrderSeq: 2 });
    t.user('u2', 'w'.repeat(20), { orderSeq: 3 }); // 5
    const checkpoint = Math.ceil(renderCheckpoint(anchor).length / 4);
    assert.ok(checkpoint > 7);
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 10 + checkpoint + 5);
  });

  it('the registry refuses a second projection under one key, and unregistering frees it', () => {
    const registry = createProjectionRegistry();
    assert.deepStrictEqual(registry.list().map((p) => p.key), ['title', 'todos', 'toolStats', 'tokenUsage', 'contextPressure']);
    const counter: Projection<number> = { key: 'entries', version: 1, init: () => 0, apply: (n) => n + 1 };
    const off = registry.register(counter);
    assert.throws(() => registry.register({ ...counter }), /already registered/);
    off();
    assert.strictEqual(registry.get('entries'), undefined);
    assert.throws(() => registry.register(titleProjection), /"title" is already registered/);
  });

  it('the runner applies only new entries, shares one read between projections, and restarts on a generation or version change', () => {
    const t = new TapeBuilder();
    t.user('u1', 'hello there', { orderSeq: 1 });
    t.event('provider/attempt', { usage: { inputTokens: 5 } });
    t.event('provider/attempt', { usage: { inputTokens: 7 } });
    const source = new FakeEntrySource(t.entries);
    source.visible = 2;
    const registry = new ProjectionRegistry([titleProjection, tokenUsageProjection]);
    const runner = new ProjectionRunner(source, registry);
    assert.deepStrictEqual(runner.views('s1'), { title: 'hello there', tokenUsage: { attempts: 1, inputTokens: 5, outputTokens: 0, cachedTokens: 0 } });
    source.visible = 3;
    assert.strictEqual(runner.view('s1', tokenUsageProjection).inputTokens, 12);
    assert.strictEqual(runner.view('s1', tokenUsageProjection).inputTokens, 12);
    assert.deepStrictEqual(source.reads, [0, 2]);

    const counter: Projection<number> = { key: 'entries', version: 1, init: () => 0, apply: (n) => n + 1 };
    registry.register(counter);
    assert.deepStrictEqual(runner.views('s1').entries, 3, 'a projection registered later folds from the start');
    source.gen = 2;
    assert.strictEqual(runner.view('s1', counter), 3);
    assert.strictEqual(runner.view('s1', { ...counter, version: 2 }), 3);
    assert.deepStrictEqual(source.reads, [0, 2, 0, 0, 0]);
  });

  it('the runner agrees with a full run of every built-in at random split points of random tapes', () => {
    fc.assert(
      fc.property(randomTape(40).chain((entries) => fc.tuple(fc.constant(entries), splitPoints(entries.length))), ([entries, splits]) => {
        const source = new FakeEntrySource(entries);
        const runner = new ProjectionRunner(source, createProjectionRegistry());
        for (const to of [...splits, entries.length]) {
          source.visible = to;
          const expected = Object.fromEntries(builtinProjections().map((p) => [p.key, viewAfter(p, entries.slice(0, to))]));
          assert.deepStrictEqual(runner.views('s1'), expected);
        }
      }),
      { numRuns: 150 },
    );
  });
});
