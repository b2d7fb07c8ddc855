import * as assert from 'assert';
import type { Entry, NewEntry } from '../../../../src/tape/entry';
import { compareSessions } from '../../../../src/tape/comparison/sessionComparison';
import { sessionComparisonText } from '../../../../src/tape/comparison/sessionComparisonText';
import { TapeBuilder } from '../tapeBuilder';

const start: NewEntry = { kind: 'anchor', name: 'session/start', payload: { name: 'session/start', state: {} } };
const say = (messageId: string, role: 'user' | 'assistant', orderSeq: number, content: string, turnId: string): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId, role, status: 'sent', orderSeq, content },
  meta: { turnId },
});
const event = (name: string, data: Record<string, unknown>, turnId: string): NewEntry => ({ kind: 'event', name, payload: { name, data }, meta: { turnId } });
const turn = (turnId: string, seq: number, ask: string, tokens: [number, number, number]): NewEntry[] => [
  event('turn/start', { turnId, maxRounds: 8 }, turnId),
  say(`u-${turnId}`, 'user', seq, `${ask}\nsecond line`, turnId),
  event('view/assembled', { turnId }, turnId),
  event('provider/attempt', { usage: { inputTokens: tokens[0], outputTokens: tokens[1], cachedTokens: tokens[2] } }, turnId),
  {
    kind: 'tool_call',
    name: 'read_file',
    payload: { messageId: `a-${turnId}`, toolCallId: `c-${turnId}`, name: 'read_file', input: { path: 'a.txt' } },
    meta: { turnId },
  },
  { kind: 'tool_result', name: 'tool/result', payload: { messageId: `a-${turnId}`, toolCallId: `c-${turnId}`, status: 'ok', output: 'x' }, meta: { turnId } },
  say(`a-${turnId}`, 'assistant', seq + 1, `answer to ${ask}`, turnId),
];

/** Entries at dense positions 1..n of a session's view. */
const entries = (sessionId: string, news: NewEntry[]): Entry[] =>
  news.map((e, i) => ({ sessionId, entryId: i + 1, kind: e.kind, name: e.name, provenanceKey: null, payload: e.payload, meta: e.meta ?? {}, createdAt: 0 }));

describe('sessionComparisonText', () => {
  it('prints the shared prefix, each paired turn after it with its items, and the totals after it, as `agent-tape diff` does', () => {
    const shared = [start, ...turn('t1', 1, 'Which walrus?', [100, 10, 0])];
    const a = entries('A', [...shared, ...turn('t2', 3, 'Why?', [200, 20, 50])]);
    const b = entries('B', [...shared, ...turn('f1', 3, 'How?', [30, 3, 0])]);
    const text = sessionComparisonText(
      'A',
      'B',
      compareSessions(
        { sessionId: 'A', entries: a, origin: (entryId) => ({ sessionId: 'A', entryId }) },
        // B is a fork of A at #8: its first 8 positions are A's entries.
        { sessionId: 'B', entries: b, origin: (entryId) => ({ sessionId: entryId <= 8 ? 'A' : 'B', entryId }) },
      ),
    );
    assert.strictEqual(
      text,
      [
        'shared prefix: 8 entries (A and B are the same up to entry 8)',
        'A A at #15, B B at #15',
        'turn 1 (A t2, B f1)',
        '  A: #9-#15, 1 requests, 200 in, 20 out, 50 cached tokens, 1 tool calls',
        '    #10 user: Why?',
        '    #13 call read_file {"path":"a.txt"}',
        '    #14 result read_file ok',
        '    #15 assistant: answer to Why?',
        '  B: #9-#15, 1 requests, 30 in, 3 out, 0 cached tokens, 1 tool calls',
        '    #10 user: How?',
        '    #13 call read_file {"path":"a.txt"}',
        '    #14 result read_file ok',
        '    #15 assistant: answer to How?',
        'total A A: 7 entries, 1 requests, 200 in, 20 out, 50 cached tokens, 1 tool calls, 0 files changed',
        'total B B: 7 entries, 1 requests, 30 in, 3 out, 0 cached tokens, 1 tool calls, 0 files changed',
        '',
      ].join('\n'),
    );
  });

  it('says two unrelated sessions share no entry, not "the same up to entry 0"', () => {
    const x = entries('x', [start, ...turn('t1', 1, 'Hi', [1, 1, 0])]);
    const y = entries('y', [start, ...turn('t1', 1, 'Hi', [1, 1, 0])]);
    const [first] = sessionComparisonText('x', 'y', compareSessions({ sessionId: 'x', entries: x }, { sessionId: 'y', entries: y })).split('\n');
    assert.strictEqual(first, 'shared prefix: none (the sessions share no entry)');
  });

  it('labels the rows of sessions without turns by the user message that starts them, and prints amendments one line each', () => {
    const side = (sessionId: string): TapeBuilder => {
      const t = new TapeBuilder(sessionId);
      t.anchor('session/start');
      t.user('u1', 'Which walrus?');
      t.anchor('compaction/manual', { summary: 'A walrus.', cursorOrderSeq: 1 }); // #3
      t.user('u2', 'Go on');
      return t;
    };
    const a = side('claude:a');
    a.event('compaction/pin', { anchorEntryId: 3, entryIds: [2], facts: [{ kind: 'decision', value: 'big' }] });
    a.event('compaction/summary-edit', { anchorEntryId: 3, summary: 'Which walrus: the big one.' });
    a.event('compaction/pin', { anchorEntryId: 3, entryIds: [2, 1] });
    const b = side('claude:b');
    b.event('compaction/undo', { anchorEntryId: 3 });
    b.event('compaction/undo', { anchorEntryId: 3, reason: 'too short' });
    const text = sessionComparisonText('A', 'B', compareSessions({ sessionId: 'A', entries: a.entries }, { sessionId: 'B', entries: b.entries }));
    assert.strictEqual(
      text,
      [
        'shared prefix: none (the sessions share no entry)',
        'A A at #7, B B at #6',
        'before any turn',
        '  A: #1-#1, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        '  B: #1-#1, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        'turn 1 (A user message #2, B user message #2)',
        '  A: #2-#3, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        '    #2 user: Which walrus?',
        '  B: #2-#3, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        '    #2 user: Which walrus?',
        'turn 2 (A user message #4, B user message #4)',
        '  A: #4-#7, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        '    #4 user: Go on',
        '    #5 pinned entry 2 and 1 fact to compaction #3: decision: big',
        '    #6 edited the summary of compaction #3: Which walrus: the big one.',
        '    #7 pinned entries 2, 1 to compaction #3',
        '  B: #4-#6, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls',
        '    #4 user: Go on',
        '    #5 undid compaction #3',
        '    #6 undid compaction #3: too short',
        'total A A: 7 entries, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls, 0 files changed',
        'total B B: 6 entries, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls, 0 files changed',
        '',
      ].join('\n'),
    );
  });
});
