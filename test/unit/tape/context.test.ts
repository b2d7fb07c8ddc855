import * as assert from 'assert';
import {
  buildContext,
  contextFrom,
  contextItems,
  ContextSelectionError,
  cursorOf,
  renderCheckpoint,
  resolveSelector,
  type ContextItem,
  type ContextResult,
  type ContextSelector,
  type GetEntry,
} from '../../../src/tape/context';
import type { Entry } from '../../../src/tape/entry';
import { foldAll, type FoldRow } from '../../../src/tape/fold';
import { FoldCache, type FoldSource } from '../../../src/tape/foldCache';
import { INTERRUPTED_OUTPUT } from '../../../src/tape/toolPairs';
import { TapeBuilder } from './tapeBuilder';

/** The context from a fresh fold cache over the builder's tape. */
const contextOf = (t: TapeBuilder, selector: ContextSelector, getEntry: GetEntry = t.get): ContextResult =>
  contextFrom(new FoldCache(t), t.sessionId, selector, getEntry);

/** role, entryId, toolCallId, toolName, content: what a provider adapter reads of each message. */
const toolView = (r: ContextResult) => r.messages.map((m) => [m.role, m.entryId, m.toolCallId ?? null, m.toolName ?? null, m.content]);

/** role:content lines, easy to compare; synthetic messages are marked with a star. */
const lines = (r: ContextResult): string[] =>
  r.messages.map((m) => `${m.source === 'synthetic' ? '*' : ''}${m.role}:${m.source === 'synthetic' ? 'checkpoint' : m.content}`);

/** A session with a system prompt, a tool-using turn, a compaction, and a turn after it. */
function compactedSession() {
  const t = new TapeBuilder();
  t.anchor('session/start', { sessionId: 's1' });
  t.system('you are terse');
  t.user('u1', 'find foo', { orderSeq: 1 });
  t.assistant('a1', 'searching', { orderSeq: 2 });
  t.call('a1', 'c1', 'grep', { q: 'foo' });
  t.result('a1', 'c1', 'grep', 'foo.ts:1');
  t.assistant('a2', 'found in foo.ts', { orderSeq: 3 });
  const compaction = t.anchor('compaction/auto', {
    summary: 'User asked for foo; it is in foo.ts.',
    cursorOrderSeq: 3,
    sourceEntryIds: [3, 4, 5, 6, 7],
    model: 'm',
    usage: {},
  });
  t.user('u2', 'now rename it', { orderSeq: 4 });
  t.assistant('a3', 'renamed', { orderSeq: 5 });
  return { t, compaction };
}

describe('tape context selection', () => {
  it('SPEC 3.8: the default context starts at the last reconstruction anchor with its checkpoint message', () => {
    const { t, compaction } = compactedSession();
    const ctx = contextOf(t, { kind: 'last' }, t.get);
    assert.strictEqual(ctx.anchorEntryId, compaction.entryId);
    assert.deepStrictEqual(lines(ctx), ['system:you are terse', '*user:checkpoint', 'user:now rename it', 'assistant:renamed']);
    assert.match(ctx.messages[1].content, /User asked for foo; it is in foo\.ts\./);
    assert.strictEqual(ctx.messages[1].entryId, null);

    const second = t.anchor('handoff/next', { summary: 'Renamed foo.' });
    t.user('u3', 'thanks', { orderSeq: 6 });
    const later = contextOf(t, { kind: 'last' }, t.get);
    assert.strictEqual(later.anchorEntryId, second.entryId, 'the last reconstruction anchor wins');
    assert.deepStrictEqual(lines(later), ['system:you are terse', '*user:checkpoint', 'user:thanks']);
  });

  it('SPEC 3.9: memory/unknown anchors never move the context cursor', () => {
    const { t, compaction } = compactedSession();
    t.anchor('memory/user-prefers-tabs', { note: 'tabs' });
    t.anchor('custom/whatever', {});
    t.anchor('fork/start', { parentId: 'p', parentHead: 3 });
    t.user('u3', 'more', { orderSeq: 6 });
    const ctx = contextOf(t, { kind: 'last' }, t.get);
    assert.strictEqual(ctx.anchorEntryId, compaction.entryId);
    assert.deepStrictEqual(lines(ctx).slice(2), ['user:now rename it', 'assistant:renamed', 'user:more']);

    const plain = new TapeBuilder();
    plain.anchor('session/start');
    plain.user('u1', 'hi', { orderSeq: 1 });
    plain.anchor('memory/x', { note: 'n' });
    plain.user('u2', 'again', { orderSeq: 2 });
    for (const selector of [{ kind: 'last' as const }, { kind: 'named' as const, name: 'memory/x' }]) {
      const r = contextOf(plain, selector, plain.get);
      assert.strictEqual(r.anchorEntryId, null);
      assert.deepStrictEqual(lines(r), ['user:hi', 'user:again']);
    }
  });

  it('SPEC 3.10: a compaction only adds to the tape; the full selector still returns the whole history', () => {
    const { t } = compactedSession();
    const withoutAnchor = t.rows().filter((r) => r.kind !== 'anchor' || r.name !== 'compaction/auto');
    const before = foldAll(withoutAnchor, { includePending: false });
    const after = foldAll(t.rows(), { includePending: false });
    assert.deepStrictEqual(after.messages, before.messages, 'no message left the effective view');
    assert.deepStrictEqual([after.toolCalls, after.toolResults], [before.toolCalls, before.toolResults]);
    assert.deepStrictEqual(
      after.anchors.map((a) => a.name),
      ['session/start', 'compaction/auto'],
    );
    assert.deepStrictEqual(
      t.entries.map((e) => e.entryId),
      t.entries.map((_, i) => i + 1),
      'every entry is still on the tape',
    );

    const full = contextOf(t, { kind: 'full' }, t.get);
    assert.strictEqual(full.anchorEntryId, null);
    assert.deepStrictEqual(lines(full), [
      'system:you are terse',
      'user:find foo',
      'assistant:searching',
      'assistant:{"q":"foo"}',
      'tool:foo.ts:1',
      'assistant:found in foo.ts',
      'user:now rename it',
      'assistant:renamed',
    ]);
  });

  it('tool calls follow their message, calls before results; an orphan result is dropped', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'two things', { orderSeq: 1 });
    t.call('a1', 'c1', 'grep', { q: 1 });
    t.call('a1', 'c2', 'read_file', { path: 'x' });
    t.result('a1', 'c2', 'read_file', { text: 'X' });
    t.result('a1', 'c9', 'grep', 'orphan');
    t.result('a1', 'c1', 'grep', 'one', 'error');
    const ctx = contextOf(t, { kind: 'full' });
    assert.deepStrictEqual(toolView(ctx), [
      ['assistant', 1, null, null, 'two things'],
      ['assistant', 2, 'c1', 'grep', '{"q":1}'],
      ['assistant', 3, 'c2', 'read_file', '{"path":"x"}'],
      ['tool', 6, 'c1', 'grep', 'one'],
      ['tool', 4, 'c2', 'read_file', '{"text":"X"}'],
    ]);
  });

  it('SPEC 2.5: a call without a result (crash, cancel) gets a synthetic error result after the calls; the tape is untouched', () => {
    const t = new TapeBuilder();
    t.user('u1', 'look around', { orderSeq: 1 });
    t.assistant('a1', 'three reads', { orderSeq: 2 });
    t.call('a1', 'c1', 'read_file', { path: 'a' });
    t.call('a1', 'c2', 'read_file', { path: 'b' });
    t.call('a1', 'c3', 'grep', { q: 'x' });
    t.result('a1', 'c2', 'read_file', 'B');
    // The process died here: c1 and c3 never got a result.
    t.user('u2', 'are you there?', { orderSeq: 3 });
    const before = JSON.stringify(t.entries);
    const ctx = contextOf(t, { kind: 'full' });
    assert.deepStrictEqual(toolView(ctx), [
      ['user', 1, null, null, 'look around'],
      ['assistant', 2, null, null, 'three reads'],
      ['assistant', 3, 'c1', 'read_file', '{"path":"a"}'],
      ['assistant', 4, 'c2', 'read_file', '{"path":"b"}'],
      ['assistant', 5, 'c3', 'grep', '{"q":"x"}'],
      ['tool', null, 'c1', 'read_file', INTERRUPTED_OUTPUT],
      ['tool', 6, 'c2', 'read_file', 'B'],
      ['tool', null, 'c3', 'grep', INTERRUPTED_OUTPUT],
      ['user', 7, null, null, 'are you there?'],
    ]);
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.source),
      ['tape', 'tape', 'tape', 'tape', 'tape', 'synthetic', 'tape', 'synthetic', 'tape'],
    );
    assert.strictEqual(JSON.stringify(t.entries), before, 'building a context writes nothing');

    t.result('a1', 'c3', 'grep', 'late but real');
    assert.deepStrictEqual(toolView(contextOf(t, { kind: 'full' }))[7], ['tool', 8, 'c3', 'grep', 'late but real'], 'a real result replaces the placeholder');
  });

  it('a handoff without a cursor resumes with the messages whose effective version came after it', () => {
    const t = new TapeBuilder();
    t.user('u1', 'plan it', { orderSeq: 1 });
    t.assistant('a1', 'plan v1', { orderSeq: 2 });
    t.assistant('a2', 'streaming', { status: 'pending', orderSeq: 3 });
    const handoff = t.anchor('handoff/implement', { summary: 'Plan agreed.', files: ['a.ts', 'b.ts'], next: { step: 'write tests', owner: 'agent' } });
    t.assistant('a2', 'finished after the handoff', { orderSeq: 3 });
    t.assistant('a1', 'plan v2 (revised)', { orderSeq: 2 });
    t.user('u2', 'go', { orderSeq: 4 });
    const ctx = contextOf(t, { kind: 'last' }, t.get);
    assert.strictEqual(ctx.anchorEntryId, handoff.entryId);
    assert.deepStrictEqual(lines(ctx), ['*user:checkpoint', 'assistant:plan v2 (revised)', 'assistant:finished after the handoff', 'user:go']);
    assert.strictEqual(
      ctx.messages[0].content,
      '[Checkpoint handoff/implement at entry 4: the conversation before this point is summarised here.]\n\nPlan agreed.\n\nState:\nfiles:\n  - a.ts\n  - b.ts\nnext:\n  step: write tests\n  owner: agent',
    );
  });

  it('a handoff that records a cursorOrderSeq resumes after it, like a compaction', () => {
    const t = new TapeBuilder();
    t.user('u1', 'one', { orderSeq: 1 });
    t.user('u2', 'two', { orderSeq: 2 });
    t.anchor('auto_handoff/budget', { summary: 'one done', cursorOrderSeq: 1 });
    assert.deepStrictEqual(lines(contextOf(t, { kind: 'last' }, t.get)), ['*user:checkpoint', 'user:two']);
  });

  it('renders a compaction checkpoint from its summary only, without bookkeeping', () => {
    const { t, compaction } = compactedSession();
    const text = renderCheckpoint(t.get(compaction.entryId));
    assert.strictEqual(
      text,
      '[Checkpoint compaction/auto at entry 8: the conversation before this point is summarised here.]\n\nUser asked for foo; it is in foo.ts.',
    );
  });

  it('the named selector uses the last anchor with exactly that name', () => {
    const { t } = compactedSession();
    const first = t.anchor('handoff/a', { summary: 'first a' });
    t.user('u3', 'x', { orderSeq: 6 });
    const second = t.anchor('handoff/a', { summary: 'second a' });
    t.anchor('handoff/b', { summary: 'b' });
    const ctx = contextOf(t, { kind: 'named', name: 'handoff/a' }, t.get);
    assert.strictEqual(ctx.anchorEntryId, second.entryId);
    assert.notStrictEqual(first.entryId, second.entryId);
    assert.match(ctx.messages[1].content, /second a/);
    assert.throws(
      () => contextOf(t, { kind: 'named', name: 'handoff/zzz' }, t.get),
      (e: unknown) => e instanceof ContextSelectionError && /no anchor named "handoff\/zzz"/.test(e.message),
    );
  });

  it('the between selector starts at the first anchor and ignores every entry after the second', () => {
    const { t, compaction } = compactedSession();
    const end = t.anchor('handoff/end', { summary: 'end' });
    t.assistant('a3', 'revised after the range', { orderSeq: 5 });
    t.system('a later prompt');
    t.user('u3', 'after the range', { orderSeq: 6 });
    const expected = ['system:you are terse', '*user:checkpoint', 'user:now rename it', 'assistant:renamed'];
    const byName = contextOf(t, { kind: 'between', from: 'compaction/auto', to: 'handoff/end' }, t.get);
    assert.strictEqual(byName.anchorEntryId, compaction.entryId);
    assert.deepStrictEqual(lines(byName), expected);
    assert.deepStrictEqual(lines(contextOf(t, { kind: 'between', from: compaction.entryId, to: end.entryId }, t.get)), expected);
    assert.deepStrictEqual(
      lines(contextOf(t, { kind: 'between', from: 'session/start', to: 'compaction/auto' }, t.get)).slice(0, 2),
      ['system:you are terse', 'user:find foo'],
      'from a non-reconstruction anchor, the range starts at the beginning',
    );
    assert.throws(() => contextOf(t, { kind: 'between', from: 3, to: end.entryId }, t.get), /entry 3 is not an anchor/);
    assert.throws(() => contextOf(t, { kind: 'between', from: end.entryId, to: 5 }, t.get), /after the end of the range/);
    assert.throws(
      () => resolveSelector(foldAll(t.rows(), { includePending: false }).anchors, { kind: 'between', from: 'handoff/end', to: 'compaction/auto' }),
      ContextSelectionError,
    );
  });

  it('the between selector keeps the later results of calls made up to its end, and only those', () => {
    const t = new TapeBuilder();
    t.anchor('session/start');
    t.user('u1', 'check both', { orderSeq: 1 });
    t.assistant('a1', 'checking', { orderSeq: 2 });
    t.call('a1', 'c1', 'read_file', { path: 'a' });
    t.call('a1', 'c2', 'read_file', { path: 'b' });
    t.result('a1', 'c1', 'read_file', 'A');
    const end = t.anchor('handoff/mid', { summary: 'mid-turn' });
    t.result('a1', 'c1', 'read_file', 'A, revised after the end');
    t.result('a1', 'c2', 'read_file', 'B, after the end');
    t.result('a1', 'c2', 'read_file', 'B, revised again');
    t.call('a1', 'c3', 'grep', { q: 'late' });
    t.result('a1', 'c3', 'grep', 'a call after the end');
    t.assistant('a2', 'after the end', { orderSeq: 3 });
    const ctx = contextOf(t, { kind: 'between', from: 'session/start', to: end.entryId });
    assert.deepStrictEqual(toolView(ctx), [
      ['user', 2, null, null, 'check both'],
      ['assistant', 3, null, null, 'checking'],
      ['assistant', 4, 'c1', 'read_file', '{"path":"a"}'],
      ['assistant', 5, 'c2', 'read_file', '{"path":"b"}'],
      ['tool', 6, 'c1', 'read_file', 'A'],
      ['tool', 10, 'c2', 'read_file', 'B, revised again'],
    ]);
  });

  it('uses the last system prompt, never shows pending messages, and loads only the selected entries', () => {
    const { t } = compactedSession();
    t.system('you are very terse');
    t.assistant('a4', 'still typing', { status: 'pending', orderSeq: 6 });
    const loaded: number[] = [];
    const getEntry = (id: number): Entry => {
      loaded.push(id);
      return t.get(id);
    };
    const ctx = contextOf(t, { kind: 'last' }, getEntry);
    assert.deepStrictEqual(lines(ctx), ['system:you are very terse', '*user:checkpoint', 'user:now rename it', 'assistant:renamed']);
    assert.deepStrictEqual(
      loaded.sort((a, b) => a - b),
      [8, 9, 10, 11],
    );
  });

  it('buildContext works from any view, which is what contextFrom hands it', () => {
    const { t, compaction } = compactedSession();
    const view = foldAll(t.rows(), { includePending: false });
    const { anchorEntryId } = resolveSelector(view.anchors, { kind: 'last' });
    assert.strictEqual(anchorEntryId, compaction.entryId);
    assert.strictEqual(view.systemPromptEntryId, 2);
    assert.deepStrictEqual(buildContext({ view, anchorEntryId }, t.get), contextOf(t, { kind: 'last' }));
  });

  it('contextFrom reads only the rows appended since the cache last folded the session', () => {
    const { t } = compactedSession();
    const reads: number[] = [];
    const source: FoldSource = {
      generation: () => 1,
      headEntryId: () => t.entries.length,
      foldRows: (sessionId: string, after: number): FoldRow[] => {
        reads.push(after);
        return t.foldRows(sessionId, after);
      },
    };
    const cache = new FoldCache(source);
    const first = contextFrom(cache, 's1', { kind: 'last' }, t.get);
    t.system('a new prompt');
    t.user('u3', 'and now?', { orderSeq: 6 });
    const second = contextFrom(cache, 's1', { kind: 'last' }, t.get);
    assert.deepStrictEqual(reads, [0, 10]);
    assert.deepStrictEqual(lines(first), ['system:you are terse', '*user:checkpoint', 'user:now rename it', 'assistant:renamed']);
    assert.deepStrictEqual(lines(second), ['system:a new prompt', '*user:checkpoint', 'user:now rename it', 'assistant:renamed', 'user:and now?']);
    assert.deepStrictEqual(second, contextOf(t, { kind: 'last' }), 'the incremental context equals a fresh one');
  });

  it("contextItems reads only the shown messages' tool facts: 10 or 10,000 compacted-away calls give the same items", () => {
    /** `earlier` tool-using turns, compacted, then a window with parallel calls, a revised result and an unanswered call. */
    const session = (earlier: number) => {
      const t = new TapeBuilder();
      for (let i = 0; i < earlier; i++) {
        t.assistant(`old${i}`, 'looking', { orderSeq: i + 1 });
        t.call(`old${i}`, `c${i}`, 'grep', {});
        t.result(`old${i}`, `c${i}`, 'grep', 'x');
      }
      const anchor = t.anchor('compaction/auto', { summary: 's', cursorOrderSeq: earlier });
      const base = anchor.entryId;
      t.user('u', 'go', { orderSeq: earlier + 1 });
      t.assistant('a', 'two at once', { orderSeq: earlier + 2 });
      t.call('a', 'p1', 'read_file', {});
      t.call('a', 'p2', 'read_file', {});
      t.result('a', 'p2', 'read_file', 'B');
      t.result('a', 'p1', 'read_file', 'A', 'error');
      t.result('a', 'p1', 'read_file', 'A again');
      t.assistant('b', 'one more', { orderSeq: earlier + 3 });
      t.call('b', 'q1', 'list_dir', {});
      const view = foldAll(t.rows(), { includePending: false });
      const items = contextItems(view, cursorOf(anchor));
      // Entry ids move with the history before the window, so the items are compared relative to the anchor.
      const rel = (id: number) => id - base;
      const shape = items.map((i: ContextItem) =>
        i.kind === 'message'
          ? [i.kind, i.message.messageId, rel(i.message.entryId)]
          : i.kind === 'result'
            ? [i.kind, i.call.toolCallId, rel(i.call.entryId), i.result.status, rel(i.result.entryId)]
            : [i.kind, i.call.toolCallId, rel(i.call.entryId)],
      );
      return { view, anchor, shape };
    };
    const small = session(10);
    const large = session(10_000);
    assert.deepStrictEqual(small.shape, [
      ['message', 'u', 1],
      ['message', 'a', 2],
      ['call', 'p1', 3],
      ['call', 'p2', 4],
      ['result', 'p1', 3, 'ok', 7],
      ['result', 'p2', 4, 'ok', 5],
      ['message', 'b', 8],
      ['call', 'q1', 9],
      ['interrupted', 'q1', 9],
    ]);
    assert.deepStrictEqual(large.shape, small.shape);

    // The session-wide arrays are never read: a view without them gives the same items.
    const untouchable = new Proxy([], { get: () => assert.fail('contextItems read a session-wide tool array') });
    const { view, anchor } = large;
    assert.deepStrictEqual(contextItems({ ...view, toolCalls: untouchable, toolResults: untouchable }, cursorOf(anchor)), contextItems(view, cursorOf(anchor)));
  });
});
