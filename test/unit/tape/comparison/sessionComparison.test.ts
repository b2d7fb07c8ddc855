import * as assert from 'assert';
import type { Entry, NewEntry } from '../../../../src/tape/entry';
import { foldAll, foldRowOf } from '../../../../src/tape/fold';
import { compareSessions, type ComparedSession } from '../../../../src/tape/comparison/sessionComparison';
import { checkpointEntry } from '../../../../src/tape/workspaceCheckpoint';
import { TapeBuilder } from '../tapeBuilder';

const start: NewEntry = { kind: 'anchor', name: 'session/start', payload: { name: 'session/start', state: {} } };
const say = (messageId: string, role: 'user' | 'assistant', orderSeq: number, content: string, turnId?: string): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId, role, status: 'sent', orderSeq, content },
  meta: turnId === undefined ? {} : { turnId },
});
const event = (name: string, data: Record<string, unknown>, turnId: string): NewEntry => ({ kind: 'event', name, payload: { name, data }, meta: { turnId } });
const turnStart = (turnId: string) => event('turn/start', { turnId, maxRounds: 8 }, turnId);
const request = (turnId: string) => event('view/assembled', { turnId }, turnId);
const attempt = (turnId: string, inputTokens: number, outputTokens: number, cachedTokens: number) =>
  event('provider/attempt', { usage: { inputTokens, outputTokens, cachedTokens } }, turnId);
const call = (messageId: string, toolCallId: string, name: string, input: unknown, turnId: string): NewEntry => ({
  kind: 'tool_call',
  name,
  payload: { messageId, toolCallId, name, input },
  meta: { turnId },
});
const result = (messageId: string, toolCallId: string, status: 'ok' | 'error', turnId: string): NewEntry => ({
  kind: 'tool_result',
  name: 'tool/result',
  payload: { messageId, toolCallId, status, output: 'done' },
  meta: { turnId },
});

/** Entries at dense positions 1..n of a session's view. */
function session(sessionId: string, news: NewEntry[]): Entry[] {
  return news.map((e, i) => ({
    sessionId,
    entryId: i + 1,
    kind: e.kind,
    name: e.name,
    provenanceKey: null,
    payload: e.payload,
    meta: e.meta ?? {},
    createdAt: 0,
  }));
}

const HEX = (c: string) => c.repeat(40);
const turn = (turnId: string, seq: number, ask: string, tokens: [number, number, number]): NewEntry[] => [
  turnStart(turnId),
  say(`u-${turnId}`, 'user', seq, `${ask}\nsecond line`, turnId),
  request(turnId),
  attempt(turnId, ...tokens),
  say(`a-${turnId}`, 'assistant', seq + 1, `answer to ${ask}`, turnId),
];

describe('compareSessions', () => {
  const parentEntries = [start, ...turn('t1', 1, 'Which walrus?', [100, 10, 0])];

  it('a fork and its parent share exactly the fork point, by origin, even where the next entries are alike', () => {
    const p = parentEntries.length; // 6
    const parentNext = [...turn('t2', 3, 'Why?', [200, 20, 50])];
    const parent = session('s1', [...parentEntries, ...parentNext]);
    // The fork reads positions 1..p through, then its own fork/start; its own turn asks the same question.
    const forkOwn: NewEntry[] = [{ kind: 'anchor', name: 'fork/start', payload: { name: 'fork/start', state: {} } }, ...turn('t9', 3, 'Why?', [200, 20, 50])];
    const fork = session('s1::fork::f', [...parentEntries, ...forkOwn]);
    const a: ComparedSession = { sessionId: 's1', entries: parent, origin: (entryId) => ({ sessionId: 's1', entryId }) };
    const b: ComparedSession = {
      sessionId: 's1::fork::f',
      entries: fork,
      origin: (entryId) => (entryId <= p ? { sessionId: 's1', entryId } : { sessionId: 's1::fork::f', entryId: entryId - p + 1 }),
    };
    const r = compareSessions(a, b);
    assert.strictEqual(r.sharedPrefix, p);
    assert.deepStrictEqual(r.a, { sessionId: 's1', headEntryId: 11 });
    assert.deepStrictEqual(r.b, { sessionId: 's1::fork::f', headEntryId: 12 });
    assert.deepStrictEqual(r.shared, {
      entries: 6,
      requests: 1,
      tokens: { inputTokens: 100, outputTokens: 10, cachedTokens: 0 },
      toolCalls: 0,
      filesChanged: [],
    });
    // The fork's fork/start comes before its first turn: a leading row, the parent's side empty.
    assert.strictEqual(r.turns.length, 2);
    assert.strictEqual(r.turns[0].a, null);
    assert.deepStrictEqual(r.turns[0].b?.items, []);
    assert.strictEqual(r.turns[0].b?.turnId, null);
    assert.strictEqual(r.turns[1].a?.turnId, 't2');
    assert.strictEqual(r.turns[1].b?.turnId, 't9');
    assert.deepStrictEqual(r.turns[1].a?.items, [
      { kind: 'message', entryId: 8, role: 'user', status: 'sent', firstLine: 'Why?' },
      { kind: 'message', entryId: 11, role: 'assistant', status: 'sent', firstLine: 'answer to Why?' },
    ]);
    // Without origins the same entries compare by content: the fork/start is where they part.
    const byContent = compareSessions({ sessionId: 's1', entries: parent }, { sessionId: 's1::fork::f', entries: fork });
    assert.strictEqual(byContent.sharedPrefix, 0, 'session/start is each session own, so content matching never starts');
  });

  it('two unrelated sessions share 0 entries, session/start included, by content or by origin', () => {
    const x = session('x', [start, say('m1', 'user', 1, 'hello')]);
    const y = session('y', [start, say('m1', 'user', 1, 'hello')]);
    assert.strictEqual(compareSessions({ sessionId: 'x', entries: x }, { sessionId: 'y', entries: y }).sharedPrefix, 0);
    const r = compareSessions(
      { sessionId: 'x', entries: x, origin: (entryId) => ({ sessionId: 'x', entryId }) },
      { sessionId: 'y', entries: y, origin: (entryId) => ({ sessionId: 'y', entryId }) },
    );
    assert.strictEqual(r.sharedPrefix, 0);
    // No turns on either side: session/start before the first prompt, then the prompt beside the prompt.
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a?.startsAt, t.a?.items.map((i) => i.kind), t.b?.startsAt]),
      [
        [null, [], null],
        ['user_message', ['message'], 'user_message'],
      ],
    );
    assert.strictEqual(r.totals.a.entries, 2);
  });

  it('aligns the turns after the divergence and sums tokens, requests, tool calls and file changes per turn and per side', () => {
    const own = (id: string) => ({ origin: (entryId: number) => ({ sessionId: id, entryId }) });
    const common = [start, ...turn('t1', 1, 'Fix the bug', [10, 1, 0])];
    const shared = (entryId: number) => ({ sessionId: 'base', entryId });
    const files = [{ path: 'src/a.ts', change: 'modified' as const, added: 3, removed: 1 }];
    const cp = (id: string, reason: 'turn_start' | 'turn_end', turnId: string) =>
      checkpointEntry('b', {
        checkpointId: HEX(id),
        previousId: null,
        reason,
        turnId,
        fileCount: 2,
        files: reason === 'turn_end' ? files : [],
        filesOmitted: 0,
        skipped: [],
        skippedOmitted: 0,
        durationMs: 1,
      });
    const aEntries = session('a', [
      ...common,
      turnStart('ta1'),
      say('ua', 'user', 3, 'Try grep', 'ta1'),
      request('ta1'),
      attempt('ta1', 500, 40, 100),
      attempt('ta1', 600, 50, 200), // a retry: billed too
      call('aa', 'c1', 'grep', { pattern: 'bug', path: 'src' }, 'ta1'),
      result('aa', 'c1', 'error', 'ta1'),
      request('ta1'),
      attempt('ta1', 700, 60, 300),
      say('aa', 'assistant', 4, 'Nothing found', 'ta1'),
      turnStart('ta2'),
      say('ua2', 'user', 5, 'Again', 'ta2'),
    ]);
    const bEntries = session('b', [
      ...common,
      turnStart('tb1'),
      say('ub', 'user', 3, 'Edit it', 'tb1'),
      request('tb1'),
      cp('1', 'turn_start', 'tb1'),
      attempt('tb1', 300, 30, 0),
      call('ab', 'c2', 'edit_file', 'src/a.ts\nline two', 'tb1'),
      result('ab', 'c2', 'ok', 'tb1'),
      cp('2', 'turn_end', 'tb1'),
    ]);
    const n = common.length;
    const r = compareSessions(
      { sessionId: 'a', entries: aEntries, origin: (e) => (e <= n ? shared(e) : own('a').origin(e)) },
      { sessionId: 'b', entries: bEntries, origin: (e) => (e <= n ? shared(e) : own('b').origin(e)) },
    );
    assert.strictEqual(r.sharedPrefix, n);
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a?.turnId ?? null, t.b?.turnId ?? null]),
      [
        ['ta1', 'tb1'],
        ['ta2', null],
      ],
    );
    const [first] = r.turns;
    assert.deepStrictEqual(
      { ...first.a, items: undefined },
      {
        turnId: 'ta1',
        startsAt: 'turn_start',
        fromEntryId: 7,
        toEntryId: 16,
        items: undefined,
        requests: 2,
        tokens: { inputTokens: 1800, outputTokens: 150, cachedTokens: 600 },
        toolCalls: 1,
        files: null,
        filesOmitted: 0,
      },
    );
    assert.deepStrictEqual(first.a?.items, [
      { kind: 'message', entryId: 8, role: 'user', status: 'sent', firstLine: 'Try grep' },
      { kind: 'tool_call', entryId: 12, name: 'grep', input: '{"pattern":"bug","path":"src"}' },
      { kind: 'tool_result', entryId: 13, name: 'grep', status: 'error' },
      { kind: 'message', entryId: 16, role: 'assistant', status: 'sent', firstLine: 'Nothing found' },
    ]);
    assert.deepStrictEqual(first.b?.items[1], { kind: 'tool_call', entryId: 12, name: 'edit_file', input: 'src/a.ts line two' });
    assert.deepStrictEqual(first.b?.files, files);
    assert.deepStrictEqual(r.totals.a, {
      entries: 12,
      requests: 2,
      tokens: { inputTokens: 1800, outputTokens: 150, cachedTokens: 600 },
      toolCalls: 1,
      filesChanged: [],
    });
    assert.deepStrictEqual(r.totals.b, {
      entries: 8,
      requests: 1,
      tokens: { inputTokens: 300, outputTokens: 30, cachedTokens: 0 },
      toolCalls: 1,
      filesChanged: ['src/a.ts'],
    });
  });

  it('lists only what is effective in the view when one is given', () => {
    const entries = session('x', [
      start,
      say('m1', 'user', 1, 'draft'),
      say('m1', 'user', 1, 'final'),
      // A call of a message the view never got: recorded, not effective.
      call('gone', 'c9', 'grep', {}, 'tx'),
    ]);
    const view = foldAll(entries.map(foldRowOf), { includePending: false });
    const r = compareSessions({ sessionId: 'x', entries, view }, { sessionId: 'y', entries: session('y', [start]) });
    // The superseded draft starts no row: session/start and the draft lead, the effective revision is the prompt.
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a?.fromEntryId, t.a?.items.map((i) => (i.kind === 'message' ? i.firstLine : ''))]),
      [
        [1, []],
        [3, ['final']],
      ],
    );
    assert.strictEqual(r.turns[1].a?.toolCalls, 0);
    assert.strictEqual(compareSessions({ sessionId: 'x', entries }, { sessionId: 'y', entries: [] }).totals.a.toolCalls, 1);
  });

  /** A session as another agent's ingest writes it: messages, tool calls and results, anchors and events, no turn/start. */
  const ingested = (sessionId: string, prompts: string[]): TapeBuilder => {
    const t = new TapeBuilder(sessionId);
    t.anchor('session/start', { ingestedFrom: 'claude-code' });
    t.event('claude/meta', { cwd: '/w' });
    prompts.forEach((ask, k) => {
      t.user(`u${k}`, ask);
      t.call(`a${k}`, `c${k}`, 'read_file', { path: 'a.txt' });
      t.result(`a${k}`, `c${k}`, 'read_file', 'x');
      t.assistant(`a${k}`, `answer to ${ask}`);
    });
    return t;
  };
  const rowsOf = (r: ReturnType<typeof compareSessions>) =>
    r.turns.map((t) =>
      [t.a, t.b].map((side) =>
        side === null
          ? null
          : [side.startsAt, side.fromEntryId, side.toEntryId, side.items.map((i) => (i.kind === 'message' ? `${i.role}: ${i.firstLine}` : i.kind))],
      ),
    );

  it('cuts a session without turn/start (ingested from another agent) at each user message, so each prompt faces a prompt', () => {
    const a = ingested('claude:a', ['Which walrus?', 'Why?']);
    const b = ingested('claude:b', ['Which walrus?', 'How?', 'And then?']);
    const r = compareSessions({ sessionId: 'claude:a', entries: a.entries }, { sessionId: 'claude:b', entries: b.entries });
    assert.strictEqual(r.sharedPrefix, 0);
    const prompt = (from: number, ask: string) => ['user_message', from, from + 3, [`user: ${ask}`, 'tool_call', 'tool_result', `assistant: answer to ${ask}`]];
    assert.deepStrictEqual(rowsOf(r), [
      [
        [null, 1, 2, []],
        [null, 1, 2, []],
      ],
      [prompt(3, 'Which walrus?'), prompt(3, 'Which walrus?')],
      [prompt(7, 'Why?'), prompt(7, 'How?')],
      [null, prompt(11, 'And then?')],
    ]);
    assert.ok(r.turns.every((t) => t.a?.turnId === undefined || t.a.turnId === null));
    assert.deepStrictEqual([r.turns[1].a?.toolCalls, r.totals.a.toolCalls, r.totals.b.toolCalls], [1, 2, 3]);
  });

  it('cuts each side by its own rule when only one has turn/start', () => {
    const own = session('s1', [start, ...turn('t1', 1, 'Which walrus?', [10, 1, 0]), ...turn('t2', 3, 'Why?', [20, 2, 0])]);
    const other = ingested('codex:x', ['Which walrus?']);
    const r = compareSessions({ sessionId: 's1', entries: own }, { sessionId: 'codex:x', entries: other.entries });
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a === null ? '-' : t.a.startsAt, t.a?.turnId ?? '-', t.b === null ? '-' : t.b.startsAt, t.b?.fromEntryId ?? '-']),
      [
        // s1's session/start precedes its first turn/start; codex:x's start and meta event precede its first prompt.
        [null, '-', null, 1],
        ['turn_start', 't1', 'user_message', 3],
        ['turn_start', 't2', '-', '-'],
      ],
    );
    // In the agent's own session the user message stays inside its turn: no row of its own.
    assert.deepStrictEqual(
      r.turns[1].a?.items.map((i) => i.kind),
      ['message', 'message'],
    );
  });

  it('lists the amendments of a compaction (pin, summary edit, undo) as items of the row they are in', () => {
    const base = (sessionId: string): TapeBuilder => {
      const t = new TapeBuilder(sessionId);
      t.anchor('session/start');
      t.user('u1', 'Which walrus?');
      t.assistant('a1', 'The big one.');
      t.anchor('compaction/manual', { summary: 'The user asked about a walrus.', cursorOrderSeq: 2 }); // #4
      return t;
    };
    const a = base('a');
    a.user('u2', 'Go on');
    a.event('compaction/pin', { anchorEntryId: 4, entryIds: [3, 2], facts: [{ kind: 'decision', value: 'the big\nwalrus' }] });
    a.event('compaction/summary-edit', { anchorEntryId: 4, summary: '\nThe user asked which walrus.\nMore.' });
    const b = base('b');
    b.user('u2', 'Go on');
    b.event('compaction/undo', { anchorEntryId: 4, reason: 'lost the\nanswer' });
    b.event('compaction/undo', { anchorEntryId: 4 });
    // A malformed amendment (a hand-edited tape) is not listed; the store would have refused it.
    b.entries.push({ ...b.entries[b.entries.length - 1], entryId: 8, payload: { name: 'compaction/pin', data: { anchorEntryId: 'x' } } });
    const origin = (id: string) => (entryId: number) => ({ sessionId: entryId <= 4 ? 'base' : id, entryId });
    const r = compareSessions({ sessionId: 'a', entries: a.entries, origin: origin('a') }, { sessionId: 'b', entries: b.entries, origin: origin('b') });
    assert.strictEqual(r.sharedPrefix, 4);
    assert.strictEqual(r.turns.length, 1);
    assert.deepStrictEqual(r.turns[0].a?.items.slice(1), [
      { kind: 'compaction_pin', entryId: 6, anchorEntryId: 4, entryIds: [3, 2], facts: ['decision: the big walrus'] },
      { kind: 'compaction_summary_edit', entryId: 7, anchorEntryId: 4, firstLine: 'The user asked which walrus.' },
    ]);
    assert.deepStrictEqual(r.turns[0].b?.items.slice(1), [
      { kind: 'compaction_undo', entryId: 6, anchorEntryId: 4, reason: 'lost the answer' },
      { kind: 'compaction_undo', entryId: 7, anchorEntryId: 4, reason: null },
    ]);
    assert.strictEqual(r.turns[0].b?.toEntryId, 8);
  });
});
