import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { NewEntry } from '../../../src/tape/entry';
import { TapeStore } from '../../../src/store/tapeStore';
import type { SessionComparison } from '../../../src/tape/comparison/sessionComparison';
import { cli } from './build';

const say = (messageId: string, role: 'user' | 'assistant', orderSeq: number, content: string, turnId: string): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId, role, status: 'sent', orderSeq, content, turnId },
  meta: { turnId },
});
const event = (name: string, data: Record<string, unknown>, turnId: string): NewEntry => ({ kind: 'event', name, payload: { name, data }, meta: { turnId } });
/** A turn of one request: its question, the request (the store does not read its manifest), an attempt with the usage given, a tool call and its result, the answer. */
const turn = (turnId: string, seq: number, ask: string, usage: [number, number, number]): NewEntry[] => [
  event('turn/start', { turnId, maxRounds: 8 }, turnId),
  say(`u-${turnId}`, 'user', seq, ask, turnId),
  event('view/assembled', { turnId }, turnId),
  event('provider/attempt', { usage: { inputTokens: usage[0], outputTokens: usage[1], cachedTokens: usage[2] } }, turnId),
  {
    kind: 'tool_call',
    name: 'read_file',
    payload: { messageId: `a-${turnId}`, toolCallId: `c-${turnId}`, name: 'read_file', input: { path: 'a.txt' } },
    meta: { turnId },
  },
  { kind: 'tool_result', name: 'tool/result', payload: { messageId: `a-${turnId}`, toolCallId: `c-${turnId}`, status: 'ok', output: 'x' }, meta: { turnId } },
  say(`a-${turnId}`, 'assistant', seq + 1, `answer to ${ask}`, turnId),
  event('turn/end', { turnId, outcome: 'answer', rounds: 1 }, turnId),
];

describe('agent-tape diff', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-diff-'));
    tape = path.join(dir, 'demo.tape.sqlite');
    const s = await TapeStore.open(tape);
    await s.appendMany('s1', turn('t1', 1, 'Which walrus?', [100, 10, 5]));
    await s.appendMany('other', turn('o1', 1, 'Which walrus?', [1, 1, 1]));
    await s.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const diff = async (...argv: string[]): Promise<SessionComparison> => {
    const r = await cli('diff', tape, ...argv, '--json');
    assert.strictEqual(r.code, 0, r.err);
    return JSON.parse(r.out) as SessionComparison;
  };

  it('a fork and its parent share the fork point; after it, their turns are aligned with their own totals', async () => {
    const forked = await cli('fork', tape, '--session', 's1', '--id', 'alt');
    assert.strictEqual(forked.code, 0, forked.err);
    const p = (JSON.parse(forked.out) as { parentHeadEntryId: number }).parentHeadEntryId;
    assert.strictEqual(p, 9); // session/start and the turn's 8 entries

    // Just forked: the fork is its parent's view plus its fork/start.
    assert.strictEqual((await diff('s1', 's1::fork::alt')).sharedPrefix, p);

    const s = await TapeStore.open(tape);
    await s.appendMany('s1', [...turn('t2', 3, 'Why?', [200, 20, 0]), ...turn('t3', 5, 'And then?', [300, 30, 0])]);
    await s.appendMany('s1::fork::alt', turn('f1', 3, 'What about the small walrus?', [50, 5, 1]));
    await s.close();

    const r = await diff('s1', 's1::fork::alt');
    assert.strictEqual(r.sharedPrefix, p);
    assert.deepStrictEqual([r.shared.requests, r.shared.tokens], [1, { inputTokens: 100, outputTokens: 10, cachedTokens: 5 }]);
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a?.turnId ?? null, t.b?.turnId ?? null]),
      [
        [null, null], // the parent: nothing before its next turn (null side); the fork: its fork/start
        ['t2', 'f1'],
        ['t3', null],
      ],
    );
    assert.strictEqual(r.turns[0].a, null);
    assert.deepStrictEqual(r.turns[1].b?.items, [
      { kind: 'message', entryId: 12, role: 'user', status: 'sent', firstLine: 'What about the small walrus?' },
      { kind: 'tool_call', entryId: 15, name: 'read_file', input: '{"path":"a.txt"}' },
      { kind: 'tool_result', entryId: 16, name: 'read_file', status: 'ok' },
      { kind: 'message', entryId: 17, role: 'assistant', status: 'sent', firstLine: 'answer to What about the small walrus?' },
    ]);
    assert.deepStrictEqual(r.totals.a, {
      entries: 16,
      requests: 2,
      tokens: { inputTokens: 500, outputTokens: 50, cachedTokens: 0 },
      toolCalls: 2,
      filesChanged: [],
    });
    assert.deepStrictEqual(r.totals.b, {
      entries: 9,
      requests: 1,
      tokens: { inputTokens: 50, outputTokens: 5, cachedTokens: 1 },
      toolCalls: 1,
      filesChanged: [],
    });
    assert.deepStrictEqual([r.a.headEntryId, r.b.headEntryId], [25, 18]);

    const human = await cli('diff', tape, 's1', 's1::fork::alt');
    assert.strictEqual(human.code, 0, human.err);
    assert.match(human.out, /^shared prefix: 9 entries \(A and B are the same up to entry 9\)\n/);
    assert.ok(human.out.includes('turn 1 (A t2, B f1)\n  A: #10-#17, 1 requests, 200 in, 20 out, 0 cached tokens, 1 tool calls\n'), human.out);
    assert.ok(human.out.includes('\n    #12 user: What about the small walrus?\n'), human.out);
    assert.match(human.out, /total B s1::fork::alt: 9 entries, 1 requests, 50 in, 5 out, 1 cached tokens, 1 tool calls, 0 files changed\n/);
  });

  it('two unrelated sessions share 0 entries: each session/start is its own', async () => {
    const r = await diff('s1', 'other');
    assert.strictEqual(r.sharedPrefix, 0);
    assert.deepStrictEqual(
      r.turns.map((t) => [t.a?.turnId ?? null, t.b?.turnId ?? null]),
      [
        [null, null],
        ['t1', 'o1'],
      ],
    );
    assert.strictEqual(r.totals.a.entries, 9);
  });

  it('an unknown session exits 2 and names the sessions', async () => {
    const r = await cli('diff', tape, 's1', 'nope');
    assert.strictEqual(r.code, 2);
    assert.match(r.err, /no session "nope"/);
    assert.strictEqual((await cli('diff', tape, 's1')).code, 2);
  });
});
