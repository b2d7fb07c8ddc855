import * as assert from 'assert';
import fc from 'fast-check';
import {
  applyRows,
  foldAll,
  foldRowOf,
  newFoldState,
  viewOf,
  type EffectiveView,
  type FoldRow,
  type MessageToolFacts,
  type ViewToolCall,
  type ViewToolResult,
} from '../../../src/tape/fold';
import { randomTape, splitPoints } from './randomTape';
import { TapeBuilder } from './tapeBuilder';

const final = { includePending: false };
const live = { includePending: true };

/** A deliberately naive reading of SPEC 2.3 (recompute everything, sort at the end) to check the real fold against. */
function referenceFold(rows: readonly FoldRow[], includePending: boolean): EffectiveView {
  const rank = (s: string | null) => (s === 'sent' || s === 'error' ? 2 : s === 'pending' && includePending ? 1 : 0);
  const cand = new Map<string, FoldRow>();
  const retracted = new Map<string, boolean>();
  const facts = new Map<string, FoldRow>();
  for (const r of rows) {
    if (r.kind === 'message' && rank(r.status) > 0) {
      const old = cand.get(r.messageId!);
      if (!old || rank(r.status) > rank(old.status) || (rank(r.status) === rank(old.status) && r.entryId > old.entryId)) cand.set(r.messageId!, r);
      retracted.set(r.messageId!, false);
    } else if (r.kind === 'event' && r.name === 'message/retracted') retracted.set(r.messageId!, true);
    else if (r.kind === 'tool_call' || (r.kind === 'tool_result' && (r.status === 'ok' || r.status === 'error'))) {
      const key = `${r.kind}|${r.messageId}|${r.toolCallId}`;
      // Crash repair's stand-in never replaces a recorded result.
      if (!(r.interrupted && facts.has(key) && !facts.get(key)!.interrupted)) facts.set(key, r);
    }
  }
  const effective = (id: string) => cand.has(id) && !retracted.get(id);
  const shown = [...facts.values()].filter((f) => effective(f.messageId!)).sort((a, b) => a.entryId - b.entryId);
  const toolCalls = shown
    .filter((f) => f.kind === 'tool_call')
    .map((f) => ({ messageId: f.messageId!, toolCallId: f.toolCallId!, name: f.name, entryId: f.entryId }));
  const toolResults = shown
    .filter((f) => f.kind === 'tool_result')
    .map((f) => ({ messageId: f.messageId!, toolCallId: f.toolCallId!, status: f.status!, entryId: f.entryId }));
  return {
    headEntryId: rows.length ? rows[rows.length - 1].entryId : 0,
    messages: [...cand.values()]
      .filter((r) => effective(r.messageId!))
      .sort((a, b) => a.orderSeq! - b.orderSeq! || a.entryId - b.entryId)
      .map((r) => ({ messageId: r.messageId!, role: r.role!, status: r.status!, orderSeq: r.orderSeq!, entryId: r.entryId })),
    toolCalls,
    toolResults,
    toolFacts: groupByMessage(toolCalls, toolResults),
    anchors: rows.filter((r) => r.kind === 'anchor').map((r) => ({ entryId: r.entryId, name: r.name })),
    systemPromptEntryId: rows.filter((r) => r.kind === 'system' && r.name === 'system/prompt').pop()?.entryId ?? null,
  };
}

/** The flat tool facts grouped per message, the plain way: what `EffectiveView.toolFacts` must equal. */
function groupByMessage(calls: readonly ViewToolCall[], results: readonly ViewToolResult[]): Map<string, MessageToolFacts> {
  const byMessage = new Map<string, { calls: ViewToolCall[]; results: Map<string, ViewToolResult> }>();
  const of = (messageId: string) => {
    if (!byMessage.has(messageId)) byMessage.set(messageId, { calls: [], results: new Map() });
    return byMessage.get(messageId)!;
  };
  for (const c of calls) of(c.messageId).calls.push(c);
  for (const r of results) of(r.messageId).results.set(r.toolCallId, r);
  return byMessage;
}

/** A deep copy: views share the state's arrays and maps, and the next applyRows changes them. */
const snapshot = (v: EffectiveView): EffectiveView => structuredClone(v);

describe('tape fold (effective view)', () => {
  it('foldRowOf reads the fields the fold needs and nothing else', () => {
    const t = new TapeBuilder();
    const m = t.assistant('m1', 'hi', { status: 'pending', orderSeq: 7 });
    const c = t.call('m1', 'c1', 'grep', { q: 'x' });
    const r = t.result('m1', 'c1', 'grep', 'found', 'error');
    const x = t.retract('m1');
    const a = t.anchor('handoff/x', { summary: 's' });
    const i = t.interrupted('m1', 'c1', 'grep');
    assert.deepStrictEqual(foldRowOf(m), {
      entryId: 1,
      kind: 'message',
      name: 'message/assistant',
      messageId: 'm1',
      toolCallId: null,
      status: 'pending',
      orderSeq: 7,
      role: 'assistant',
      interrupted: false,
    });
    assert.deepStrictEqual(foldRowOf(c), {
      entryId: 2,
      kind: 'tool_call',
      name: 'grep',
      messageId: 'm1',
      toolCallId: 'c1',
      status: null,
      orderSeq: null,
      role: null,
      interrupted: false,
    });
    assert.deepStrictEqual(foldRowOf(r), {
      entryId: 3,
      kind: 'tool_result',
      name: 'grep',
      messageId: 'm1',
      toolCallId: 'c1',
      status: 'error',
      orderSeq: null,
      role: null,
      interrupted: false,
    });
    assert.deepStrictEqual(foldRowOf(x), {
      entryId: 4,
      kind: 'event',
      name: 'message/retracted',
      messageId: 'm1',
      toolCallId: null,
      status: null,
      orderSeq: null,
      role: null,
      interrupted: false,
    });
    assert.deepStrictEqual(foldRowOf(a), {
      entryId: 5,
      kind: 'anchor',
      name: 'handoff/x',
      messageId: null,
      toolCallId: null,
      status: null,
      orderSeq: null,
      role: null,
      interrupted: false,
    });
    assert.deepStrictEqual(foldRowOf(i), {
      entryId: 6,
      kind: 'tool_result',
      name: 'grep',
      messageId: 'm1',
      toolCallId: 'c1',
      status: 'error',
      orderSeq: null,
      role: null,
      interrupted: true,
    });
  });

  it('SPEC 3.4: a pending message is replaced by its sent version; a later sent revision beats an earlier one', () => {
    const t = new TapeBuilder();
    t.user('u1', 'question', { orderSeq: 1 });
    t.assistant('a1', 'draft', { status: 'pending', orderSeq: 2 });
    assert.deepStrictEqual(
      foldAll(t.rows(), live).messages.map((m) => [m.messageId, m.status, m.entryId]),
      [
        ['u1', 'sent', 1],
        ['a1', 'pending', 2],
      ],
    );
    assert.deepStrictEqual(
      foldAll(t.rows(), final).messages.map((m) => m.messageId),
      ['u1'],
      'pending is invisible unless included',
    );

    t.assistant('a1', 'answer', { orderSeq: 2 });
    assert.deepStrictEqual(
      foldAll(t.rows(), live).messages.map((m) => [m.messageId, m.status, m.entryId]),
      [
        ['u1', 'sent', 1],
        ['a1', 'sent', 3],
      ],
    );

    t.assistant('a1', 'streaming a correction', { status: 'pending', orderSeq: 2 });
    assert.strictEqual(foldAll(t.rows(), live).messages[1].entryId, 3, 'a pending revision never beats a sent version');

    t.assistant('a1', 'corrected answer', { orderSeq: 2 });
    const v = foldAll(t.rows(), final);
    assert.deepStrictEqual(
      v.messages.map((m) => [m.messageId, m.entryId]),
      [
        ['u1', 1],
        ['a1', 5],
      ],
    );
    assert.strictEqual(t.get(v.messages[1].entryId).payload.content, 'corrected answer');
  });

  it('an error message ranks like a sent one: the later of the two wins', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'ok', { orderSeq: 1 });
    t.assistant('a1', 'failed', { status: 'error', orderSeq: 1 });
    assert.deepStrictEqual(
      foldAll(t.rows(), final).messages.map((m) => [m.status, m.entryId]),
      [['error', 2]],
    );
  });

  it('SPEC 3.5: a retracted message leaves the view with its tool calls and results; a later revision revives it', () => {
    const t = new TapeBuilder();
    t.user('u1', 'q', { orderSeq: 1 });
    t.assistant('a1', 'let me look', { orderSeq: 2 });
    t.call('a1', 'c1', 'read_file', { path: 'x' });
    t.result('a1', 'c1', 'read_file', 'contents');
    const before = snapshot(foldAll(t.rows(), final));
    assert.strictEqual(before.toolCalls.length, 1);
    assert.strictEqual(before.toolResults.length, 1);

    t.retract('a1');
    const retracted = foldAll(t.rows(), final);
    assert.deepStrictEqual(
      retracted.messages.map((m) => m.messageId),
      ['u1'],
    );
    assert.deepStrictEqual(retracted.toolCalls, []);
    assert.deepStrictEqual(retracted.toolResults, []);

    t.assistant('a1', 'pending retry', { status: 'pending', orderSeq: 2 });
    assert.deepStrictEqual(
      foldAll(t.rows(), final).messages.map((m) => m.messageId),
      ['u1'],
      'a pending revision does not count when pending is excluded',
    );

    t.assistant('a1', 'let me look again', { orderSeq: 2 });
    const revived = foldAll(t.rows(), final);
    assert.deepStrictEqual(
      revived.messages.map((m) => [m.messageId, m.entryId]),
      [
        ['u1', 1],
        ['a1', 7],
      ],
    );
    assert.deepStrictEqual(revived.toolCalls, before.toolCalls, 'its tool facts come back with it');
    assert.deepStrictEqual(revived.toolResults, before.toolResults);
    assert.deepStrictEqual(revived.toolFacts, before.toolFacts);
    assert.deepStrictEqual(retracted.toolFacts, new Map(), 'the per-message index loses them too');
  });

  it('a revision after a retraction revives the best version, even when it ranks lower itself', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'final', { orderSeq: 1 });
    t.retract('a1');
    t.assistant('a1', 'streaming', { status: 'pending', orderSeq: 1 });
    assert.deepStrictEqual(
      foldAll(t.rows(), live).messages.map((m) => [m.status, m.entryId]),
      [['sent', 1]],
    );
  });

  it('retracting a message that is not in the view changes nothing, and a later first version shows', () => {
    const t = new TapeBuilder();
    t.retract('ghost');
    t.user('ghost', 'here now', { orderSeq: 1 });
    assert.deepStrictEqual(
      foldAll(t.rows(), final).messages.map((m) => m.messageId),
      ['ghost'],
    );
  });

  it('SPEC 3.6: tool facts of a non-effective message never appear in the view', () => {
    const t = new TapeBuilder();
    t.call('nobody', 'c1', 'grep', {});
    t.result('nobody', 'c1', 'grep', 'x');
    t.assistant('a1', 'streaming', { status: 'pending', orderSeq: 1 });
    t.call('a1', 'c2', 'grep', {});
    t.result('a1', 'c2', 'grep', 'y');
    const v = foldAll(t.rows(), final);
    assert.deepStrictEqual([v.messages, v.toolCalls, v.toolResults], [[], [], []]);
    assert.deepStrictEqual(
      foldAll(t.rows(), live).toolCalls.map((c) => c.toolCallId),
      ['c2'],
      'the pending message is effective when pending is included',
    );

    t.assistant('nobody', 'now I exist', { orderSeq: 0 });
    const later = foldAll(t.rows(), final);
    assert.deepStrictEqual(
      later.toolCalls.map((c) => [c.messageId, c.entryId]),
      [['nobody', 1]],
      'facts show once their message becomes effective',
    );
    assert.deepStrictEqual(
      later.toolResults.map((r) => [r.messageId, r.entryId]),
      [['nobody', 2]],
    );
  });

  it('a revised tool fact replaces the earlier one and moves to its new entry id', () => {
    const t = new TapeBuilder();
    t.assistant('a1', 'x', { orderSeq: 1 });
    t.call('a1', 'c1', 'grep', {});
    t.result('a1', 'c1', 'grep', 'first', 'error');
    t.call('a1', 'c2', 'grep', {});
    t.result('a1', 'c1', 'grep', 'retried', 'ok');
    const v = foldAll(t.rows(), final);
    assert.deepStrictEqual(
      v.toolResults.map((r) => [r.toolCallId, r.status, r.entryId]),
      [['c1', 'ok', 5]],
    );
    assert.deepStrictEqual(
      v.toolCalls.map((c) => [c.toolCallId, c.entryId]),
      [
        ['c1', 2],
        ['c2', 4],
      ],
    );

    t.call('a1', 'c1', 'grep', { again: true });
    const facts = foldAll(t.rows(), final).toolFacts.get('a1')!;
    assert.deepStrictEqual(
      facts.calls.map((c) => [c.toolCallId, c.entryId]),
      [
        ['c2', 4],
        ['c1', 6],
      ],
      'a revised call moves behind the calls made before it',
    );
    assert.deepStrictEqual(
      [...facts.results.values()].map((r) => [r.toolCallId, r.entryId]),
      [['c1', 5]],
    );
  });

  it("a recorded result wins over crash repair's stand-in for the same call, whether it comes after or before it", () => {
    for (const realFirst of [false, true]) {
      const t = new TapeBuilder();
      t.assistant('a1', 'running', { orderSeq: 1 });
      t.call('a1', 'c1', 'Bash');
      const real = () => t.result('a1', 'c1', 'Bash', 'done');
      const r = realFirst ? real() : (t.interrupted('a1', 'c1', 'Bash'), real());
      if (realFirst) t.interrupted('a1', 'c1', 'Bash');
      const view = foldAll(t.rows(), final);
      assert.deepStrictEqual(
        view.toolResults,
        [{ messageId: 'a1', toolCallId: 'c1', status: 'ok', entryId: r.entryId }],
        realFirst ? 'real, then stand-in' : 'stand-in, then real',
      );
      assert.strictEqual(view.toolFacts.get('a1')?.results.get('c1')?.entryId, r.entryId);
    }
    // Alone, the stand-in is the call's result: the provider needs one.
    const t = new TapeBuilder();
    t.assistant('a1', 'running', { orderSeq: 1 });
    t.call('a1', 'c1', 'Bash');
    const alone = t.interrupted('a1', 'c1', 'Bash');
    assert.deepStrictEqual(
      foldAll(t.rows(), final).toolResults.map((x) => x.entryId),
      [alone.entryId],
    );
  });

  it('orders messages by orderSeq, ties by entry id, wherever they arrive', () => {
    const t = new TapeBuilder();
    t.user('a', '', { orderSeq: 5 });
    t.user('b', '', { orderSeq: 1 });
    t.user('c', '', { orderSeq: 5 });
    t.user('d', '', { orderSeq: 3 });
    t.user('b', 'moved', { orderSeq: 9 });
    assert.deepStrictEqual(
      foldAll(t.rows(), final).messages.map((m) => [m.messageId, m.orderSeq, m.entryId]),
      [
        ['d', 3, 4],
        ['a', 5, 1],
        ['c', 5, 3],
        ['b', 9, 5],
      ],
    );
  });

  it('keeps every anchor, and refuses rows that are not after its head', () => {
    const t = new TapeBuilder();
    t.anchor('session/start');
    t.anchor('memory/x');
    const state = newFoldState(final);
    assert.deepStrictEqual(applyRows(state, t.rows()).anchors, [
      { entryId: 1, name: 'session/start' },
      { entryId: 2, name: 'memory/x' },
    ]);
    assert.throws(() => applyRows(state, t.rows().slice(1)), /row 2 is not after the fold head 2/);
    assert.strictEqual(viewOf(state).headEntryId, 2);
  });

  it('keeps the last system/prompt entry, folded row by row like the rest; other system names do not replace it', () => {
    const t = new TapeBuilder();
    const state = newFoldState(final);
    assert.strictEqual(viewOf(state).systemPromptEntryId, null);
    t.system('first');
    t.user('u1', 'hi', { orderSeq: 1 });
    assert.strictEqual(applyRows(state, t.rows()).systemPromptEntryId, 1);
    const second = t.system('second');
    t.add('system', 'system/note', { content: 'not a prompt' });
    assert.strictEqual(applyRows(state, t.rows().slice(2)).systemPromptEntryId, second.entryId);
  });

  it('SPEC 3.7: incremental fold equals full fold on every prefix of random tapes (random split points, pending on and off)', () => {
    fc.assert(
      fc.property(
        randomTape().chain((entries) => fc.tuple(fc.constant(entries), splitPoints(entries.length))),
        fc.boolean(),
        ([entries, splits], includePending) => {
          const rows = entries.map(foldRowOf);
          const options = { includePending };
          // Row by row: every prefix.
          const stepwise = newFoldState(options);
          for (let i = 0; i < rows.length; i++) {
            applyRows(stepwise, [rows[i]]);
            const full = foldAll(rows.slice(0, i + 1), options);
            assert.deepStrictEqual(viewOf(stepwise), full);
            assert.deepStrictEqual(full, referenceFold(rows.slice(0, i + 1), includePending));
          }
          // In random chunks: the state at each split point.
          const chunked = newFoldState(options);
          let from = 0;
          for (const to of [...splits, rows.length]) {
            applyRows(chunked, rows.slice(from, to));
            assert.deepStrictEqual(viewOf(chunked), foldAll(rows.slice(0, to), options));
            from = to;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the per-message tool facts equal the flat calls and results grouped by message, on every prefix, and survive a structured copy', () => {
    fc.assert(
      fc.property(randomTape(), fc.boolean(), (entries, includePending) => {
        const state = newFoldState({ includePending });
        for (const row of entries.map(foldRowOf)) {
          const view = applyRows(state, [row]);
          assert.deepStrictEqual(view.toolFacts, groupByMessage(view.toolCalls, view.toolResults));
          for (const m of view.toolFacts.keys())
            assert.ok(
              view.messages.some((x) => x.messageId === m),
              `facts of ${m} only while it is effective`,
            );
        }
        assert.deepStrictEqual(snapshot(viewOf(state)), viewOf(state));
      }),
      { numRuns: 200 },
    );
  });
});
