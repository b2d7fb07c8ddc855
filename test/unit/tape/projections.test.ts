import * as assert from 'assert';
import fc from 'fast-check';
import { renderCheckpoint } from '../../../src/tape/context';
import { INTERRUPTED_OUTPUT } from '../../../src/tape/toolPairs';
import type { Entry } from '../../../src/tape/entry';
import { contextPressureProjection, DEFAULT_CONTEXT_WINDOW, pressureOf } from '../../../src/tape/projections/contextPressure';
import { builtinProjections, createProjectionRegistry } from '../../../src/tape/projections';
import {
  projectionView,
  ProjectionRegistry,
  ProjectionRunner,
  runProjection,
  type EntrySource,
  type Projection,
} from '../../../src/tape/projections/projection';
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
  it('every built-in returns the very same state for entries that do not concern it', () => {
    const t = new TapeBuilder();
    // Entries none of the built-ins reads, of every kind and of known and unknown names.
    const irrelevant = [
      t.anchor('session/start', { sessionId: 's1' }),
      t.anchor('memory/x', {}),
      t.anchor('fork/start', { parentId: 'p', parentHead: 3 }),
      t.anchor('custom/unknown', { summary: 'not a reconstruction anchor' }),
      t.event('turn/start', { turnId: 't1' }),
      t.event('turn/end', { usage: { inputTokens: 9 } }),
      t.event('view/assembled', { viewId: 'v1' }),
      t.event('fork/merge', { forkId: 'f' }),
      t.event('subagent/linked', { childId: 'c' }),
      t.event('custom/event', { title: 'not a title' }),
      t.event('session/title', { title: '   ' }),
      t.add('error', 'error/provider', { kind: 'provider', message: 'rate limited' }),
      t.add('error', 'error/tool', { kind: 'tool', message: 'boom' }),
      t.add('system', 'system/note', { content: 'not the prompt' }),
    ];
    // A state that is past init, so "nothing seen yet" shortcuts cannot hide a change.
    const warmup = new TapeBuilder();
    warmup.system('be brief');
    warmup.user('u1', 'hello', { orderSeq: 1 });
    warmup.assistant('a1', 'planning', { orderSeq: 2 });
    warmup.call('a1', 'c1', 'todo_write', { todos: [{ id: 1, content: 'x', status: 'pending' }] });
    warmup.result('a1', 'c1', 'todo_write', 'ok');
    warmup.anchor('handoff/h', { summary: 's' });
    warmup.event('provider/attempt', { usage: { inputTokens: 3 } });
    const offset = warmup.entries.length;
    const after = irrelevant.map((e) => ({ ...e, entryId: e.entryId + offset }));
    // And per projection, entries that concern others but not it.
    const extra = new TapeBuilder();
    const byKey: Record<string, Entry[]> = {
      title: [
        extra.call('a1', 'c2', 'todo_write', { todos: [] }),
        extra.result('a1', 'c2', 'todo_write', 'ok'),
        extra.event('provider/attempt', {}),
        extra.system('other'),
      ],
      todos: [
        extra.call('a1', 'c3', 'grep', { q: 1 }),
        extra.result('a1', 'c3', 'grep', 'r'),
        extra.event('provider/attempt', {}),
        extra.event('session/title', { title: 'T' }),
      ],
      toolStats: [
        extra.user('u9', 'hi', { orderSeq: 9 }),
        extra.retract('u9'),
        extra.event('session/title', { title: 'T' }),
        extra.anchor('compaction/x', { summary: 's', cursorOrderSeq: 1 }),
      ],
      tokenUsage: [
        extra.user('u8', 'hi', { orderSeq: 8 }),
        extra.call('a1', 'c4', 'grep', {}),
        extra.system('other'),
        extra.anchor('handoff/y', { summary: 's' }),
      ],
      contextPressure: [extra.event('session/title', { title: 'T' }), extra.event('provider/attempt', {})],
    };
    for (const p of builtinProjections()) {
      for (const s0 of [p.init(), runProjection(p, warmup.entries)]) {
        for (const e of [...after, ...byKey[p.key].map((x, i) => ({ ...x, entryId: offset + after.length + i + 1 }))]) {
          assert.strictEqual(p.apply(s0, e), s0, `${p.key} changed its state for ${e.kind} ${e.name}`);
        }
      }
    }
    assert.deepStrictEqual(
      Object.keys(byKey),
      builtinProjections().map((p) => p.key),
      'every built-in has its own irrelevant entries',
    );
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

  it('title: bidirectional formatting characters are escapes, in a first message and in a session/title event', () => {
    const t = new TapeBuilder();
    t.user('u1', 'Fix login \u202egnp.exe\u202c', { orderSeq: 1 });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'Fix login \\u202egnp.exe\\u202c');
    t.event('session/title', { title: 'Review \u2067PR\u2069 \u200f' });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'Review \\u2067PR\\u2069 \\u200f');
  });

  it('title follows the fold: a retracted first message does not name the session, a revised one renames it', () => {
    const t = new TapeBuilder();
    t.user('u1', 'a message I take back', { orderSeq: 1 });
    t.assistant('a1', 'ok', { orderSeq: 2 });
    t.user('u2', '\n\nthe real question\nwith details', { orderSeq: 3 });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'a message I take back');
    t.retract('u1');
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'the real question');
    t.user('u1', 'revived with new words', { orderSeq: 1 });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'revived with new words');
    t.user('u0', 'still streaming', { status: 'pending', orderSeq: 0 });
    assert.strictEqual(viewAfter(titleProjection, t.entries), 'revived with new words', 'a message still streaming does not name the session');
    t.retract('u1');
    t.retract('u2');
    assert.strictEqual(viewAfter(titleProjection, t.entries), null);
  });

  it('todos follow the fold: calls of a retracted or never-sent message, or replaced by a revised row, do not count', () => {
    const t = new TapeBuilder();
    const list = (...names: string[]) => ({ todos: names.map((content, i) => ({ id: i + 1, content, status: 'pending' })) });
    t.assistant('a1', 'plan', { orderSeq: 1 });
    const first = t.call('a1', 'c1', 'todo_write', list('read'));
    t.assistant('a2', 'replan', { orderSeq: 2 });
    t.call('a2', 'c1', 'todo_write', list('read', 'write'));
    t.retract('a2');
    assert.deepStrictEqual(
      viewAfter(todosProjection, t.entries),
      { todos: [{ id: '1', content: 'read', status: 'pending' }], entryId: first.entryId },
      'retracted',
    );

    t.assistant('a3', 'streaming', { status: 'pending', orderSeq: 3 });
    t.call('a3', 'c1', 'todo_write', list('never sent'));
    assert.strictEqual(viewAfter(todosProjection, t.entries).entryId, first.entryId, 'not sent');

    t.call('a1', 'c2', 'todo_write', list('superseded'));
    const revised = t.call('a1', 'c1', 'todo_write', list('read', 'test'));
    assert.deepStrictEqual(viewAfter(todosProjection, t.entries), {
      todos: [
        { id: '1', content: 'read', status: 'pending' },
        { id: '2', content: 'test', status: 'pending' },
      ],
      entryId: revised.entryId,
    });
    t.assistant('a3', 'sent now', { orderSeq: 3 });
    t.retract('a1');
    assert.deepStrictEqual(
      viewAfter(todosProjection, t.entries).todos.map((x) => x.content),
      ['never sent'],
      'a message that becomes effective brings its calls',
    );
    t.retract('a3');
    assert.deepStrictEqual(viewAfter(todosProjection, t.entries), { todos: [], entryId: null });
  });

  it('todos: the last valid todo_write call wins; a malformed one keeps the list', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'planning', { orderSeq: 1 });
    t.call('a1', 'c1', 'todo_write', {
      todos: [
        { id: 1, content: 'read', status: 'done' },
        { id: 'b', content: 'write', status: 'pending' },
      ],
    });
    t.call('a1', 'c2', 'other_tool', { todos: [] });
    const good = t.call('a1', 'c3', 'todo_write', {
      todos: [
        { id: 1, content: 'read', status: 'done' },
        { id: 'b', content: 'write', status: 'in_progress' },
      ],
    });
    t.call('a1', 'c4', 'todo_write', { todos: [{ id: 2, content: 'x', status: 'finished' }] });
    assert.deepStrictEqual(viewAfter(todosProjection, t.entries), {
      todos: [
        { id: '1', content: 'read', status: 'done' },
        { id: 'b', content: 'write', status: 'in_progress' },
      ],
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
    const p = contextPressureProjection;
    const t = new TapeBuilder();
    t.system('x'.repeat(40)); // 10
    t.user('u1', 'y'.repeat(400), { orderSeq: 1 }); // 100
    t.assistant('a1', 'z'.repeat(40), { orderSeq: 2 }); // 10
    t.call('a1', 'c1', 'grep', 'q'.repeat(38)); // JSON string: 40 chars -> 10
    t.result('a1', 'c1', 'grep', 'r'.repeat(80)); // 20
    assert.deepStrictEqual(viewAfter(p, t.entries), { estimatedTokens: 150 });
    assert.deepStrictEqual(pressureOf(viewAfter(p, t.entries), 100), { estimatedTokens: 150, contextWindow: 100, ratio: 1.5 });
    assert.strictEqual(pressureOf({ estimatedTokens: 64_000 }).contextWindow, DEFAULT_CONTEXT_WINDOW);
    t.retract('a1');
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 110);
    const anchor = t.anchor('compaction/manual', { summary: 's'.repeat(28), cursorOrderSeq: 2 });
    t.user('u2', 'w'.repeat(20), { orderSeq: 3 }); // 5
    const checkpoint = Math.ceil(renderCheckpoint(anchor).length / 4);
    assert.ok(checkpoint > 7);
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 10 + checkpoint + 5);

    // Amendments of the compaction in force: a pinned entry and fact, an edited summary, an undo.
    const fact = Math.ceil('- command: npm test'.length / 4);
    t.event('compaction/pin', { anchorEntryId: anchor.entryId, entryIds: [2, 2], facts: [{ kind: 'command', value: 'npm test' }] });
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 10 + checkpoint + 5 + 100 + fact);
    t.event('compaction/summary-edit', { anchorEntryId: anchor.entryId, summary: 'e'.repeat(400) });
    const edited = Math.ceil(renderCheckpoint(anchor, 'e'.repeat(400)).length / 4);
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 10 + edited + 5 + 100 + fact);
    t.event('compaction/undo', { anchorEntryId: anchor.entryId });
    assert.strictEqual(viewAfter(p, t.entries).estimatedTokens, 10 + 100 + 5);
  });

  it('contextPressure counts what the context sends: an interrupted call its placeholder, an orphan result nothing', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'z'.repeat(40), { orderSeq: 1 }); // 10
    t.call('a1', 'c1', 'grep', 'q'.repeat(38)); // 10
    t.result('a1', 'c9', 'grep', 'r'.repeat(4000)); // an orphan: never sent
    const placeholder = Math.ceil(INTERRUPTED_OUTPUT.length / 4);
    assert.strictEqual(viewAfter(contextPressureProjection, t.entries).estimatedTokens, 20 + placeholder);
  });

  it('contextPressure is one projection for every window: a new window reads nothing and refolds nothing', () => {
    const t = new TapeBuilder();
    t.user('u1', 'y'.repeat(400), { orderSeq: 1 });
    const source = new FakeEntrySource(t.entries);
    const runner = new ProjectionRunner(source, createProjectionRegistry());
    const estimate = runner.view('s1', contextPressureProjection);
    assert.deepStrictEqual([pressureOf(estimate, 200).ratio, pressureOf(estimate, 1000).ratio], [0.5, 0.1]);
    assert.deepStrictEqual(runner.view('s1', contextPressureProjection), estimate);
    assert.deepStrictEqual(source.reads, [0]);
    assert.strictEqual(createProjectionRegistry().get('contextPressure'), contextPressureProjection);
  });

  it('the registry refuses a second projection under one key, and unregistering frees it', () => {
    const registry = createProjectionRegistry();
    assert.deepStrictEqual(
      registry.list().map((p) => p.key),
      ['title', 'todos', 'toolStats', 'tokenUsage', 'contextPressure'],
    );
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

  it('apply never changes the state it is given: branches grown from one state stay independent (random tapes)', () => {
    fc.assert(
      fc.property(randomTape(30), randomTape(30), fc.nat(), ([...a], [, ...b], cut) => {
        const k = cut % (a.length + 1);
        const prefix = a.slice(0, k);
        const branchA = a.slice(k);
        // The second branch continues the same prefix with other entries, numbered after it.
        const branchB = b.map((e, i) => ({ ...e, entryId: k + i + 1 }));
        for (const p of builtinProjections()) {
          const base = runProjection(p, prefix);
          const baseView = JSON.stringify(projectionView(p, base));
          // Interleaved, so each branch appends to logs the other has just extended.
          let sa = base;
          let sb = base;
          for (let i = 0; i < Math.max(branchA.length, branchB.length); i++) {
            if (i < branchA.length) sa = p.apply(sa, branchA[i]);
            if (i < branchB.length) sb = p.apply(sb, branchB[i]);
          }
          const expectedA = viewAfter(p, a);
          const expectedB = viewAfter(p, [...prefix, ...branchB]);
          assert.deepStrictEqual(projectionView(p, sb), expectedB, `${p.key}: branch B`);
          assert.deepStrictEqual(projectionView(p, sa), expectedA, `${p.key}: branch A`);
          assert.strictEqual(JSON.stringify(projectionView(p, base)), baseView, `${p.key}: the base state`);
          assert.deepStrictEqual(projectionView(p, sb), expectedB, `${p.key}: branch B, read again`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the runner agrees with a full run of every built-in at random split points of random tapes', () => {
    fc.assert(
      fc.property(
        randomTape(40).chain((entries) => fc.tuple(fc.constant(entries), splitPoints(entries.length))),
        ([entries, splits]) => {
          const source = new FakeEntrySource(entries);
          const runner = new ProjectionRunner(source, createProjectionRegistry());
          for (const to of [...splits, entries.length]) {
            source.visible = to;
            const expected = Object.fromEntries(builtinProjections().map((p) => [p.key, viewAfter(p, entries.slice(0, to))]));
            assert.deepStrictEqual(runner.views('s1'), expected);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
