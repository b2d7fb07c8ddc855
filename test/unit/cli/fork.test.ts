import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { cli } from './build';

const say = (messageId: string, role: 'user' | 'assistant', orderSeq: number, content: string) => ({
  kind: 'message' as const,
  name: `message/${role}`,
  payload: { messageId, role, status: 'sent', orderSeq, content },
});

describe('agent-tape fork, merge and discard', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-fork-'));
    tape = path.join(dir, 'demo.tape.sqlite');
    const s = await TapeStore.open(tape);
    await s.appendMany('s1', [say('u1', 'user', 1, 'Which walrus?'), say('a1', 'assistant', 2, 'The big walrus.'), say('u2', 'user', 3, 'Why?')]);
    await s.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const json = async (...argv: string[]): Promise<Record<string, unknown>> => {
    const r = await cli(...argv);
    assert.strictEqual(r.code, 0, r.err);
    return JSON.parse(r.out) as Record<string, unknown>;
  };

  it('forks at an entry, and view, context, search and log work on the fork; merge prints its receipt once', async () => {
    assert.deepStrictEqual(await json('fork', tape, '--session', 's1', '--at', '3', '--id', 'alt'), {
      forkSessionId: 's1::fork::alt',
      forkId: 'alt',
      parentSessionId: 's1',
      parentHeadEntryId: 3,
    });
    const s = await TapeStore.open(tape);
    await s.append('s1::fork::alt', say('u9', 'user', 3, 'What about the small walrus?'));
    await s.close();

    const view = await json('view', tape, '--session', 's1::fork::alt', '--json');
    assert.deepStrictEqual(
      (view.messages as { content: string; entryId: number }[]).map((m) => [m.entryId, m.content]),
      [
        [2, 'Which walrus?'],
        [3, 'The big walrus.'],
        [5, 'What about the small walrus?'],
      ],
    );
    const ctx = await json('context', tape, '--session', 's1::fork::alt', '--json');
    assert.deepStrictEqual(
      (ctx.messages as { content: string }[]).map((m) => m.content),
      ['Which walrus?', 'The big walrus.', 'What about the small walrus?'],
    );
    const hits = JSON.parse((await cli('search', tape, 'walrus', '--session', 's1::fork::alt', '--json')).out) as { entryId: number }[];
    assert.deepStrictEqual(hits.map((h) => h.entryId).sort(), [2, 3, 5]);
    const log = await cli('log', tape, '--session', 's1::fork::alt');
    assert.match(log.out, /s1::fork::alt #2 anchor fork\/start/);

    const receipt = await json('merge', tape, '--fork', 's1::fork::alt');
    assert.deepStrictEqual(receipt, {
      forkSessionId: 's1::fork::alt',
      forkId: 'alt',
      forkHeadEntryId: 3,
      mergedCount: 1,
      parentHeadAtFork: 3,
      parentHeadAtMerge: 4,
      parentMovedOn: true,
      orderSeqShift: 1,
      receiptEntryId: 6,
      alreadyMerged: false,
    });
    assert.deepStrictEqual(await json('merge', tape, '--fork', 's1::fork::alt'), { ...receipt, alreadyMerged: true });
    const parent = await json('view', tape, '--session', 's1', '--json');
    assert.deepStrictEqual(
      (parent.messages as { content: string }[]).map((m) => m.content),
      ['Which walrus?', 'The big walrus.', 'Why?', 'What about the small walrus?'],
    );
  });

  it('a refused operation exits 2 with the reason and writes nothing', async () => {
    await json('fork', tape, '--session', 's1', '--id', 'gone');
    assert.strictEqual((await json('discard', tape, '--fork', 's1::fork::gone', '--reason', 'dead end')).reason, 'dead end');
    const cases: [string[], RegExp][] = [
      [['merge', tape, '--fork', 's1::fork::gone'], /was discarded/],
      [['fork', tape, '--session', 's1', '--id', 'gone'], /already used under "s1"; fork ids are never reused/],
      [['fork', tape, '--session', 'nope'], /no session "nope"/],
      [['fork', tape, '--session', 's1', '--at', '99'], /entries are 1 to 5/],
      [['merge', tape, '--fork', 's1'], /"s1" is not a fork/],
      [['merge', tape], /--fork is required/],
      [['fork', path.join(dir, 'x.tape.jsonl'), '--session', 's1'], /fork writes to \*\.tape\.sqlite files/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await cli(...argv);
      assert.strictEqual(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, pattern);
      assert.strictEqual(r.out, '');
    }
    const s = await TapeStore.open(tape, { readOnly: true });
    assert.strictEqual(s.headEntryId('s1'), 5, 'the discard receipt and nothing after it');
    await s.close();
  });
});
