import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import type { SessionSearchResult } from '../../../src/tape/search/sessionSearch';
import { CC_SESSION, CODEX_SESSION, writeClaudeCode, writeCodex } from '../ingest/fixtures';
import { cli } from './build';

const NOV = Date.UTC(2026, 10, 3, 10);
const message = (messageId: string, role: 'user' | 'assistant', content: string, orderSeq: number, createdAt = NOV): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId, role, status: 'sent', orderSeq, content },
  createdAt,
});

describe('agent-tape search-all', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-search-all-'));
    tape = path.join(dir, 'all.tape.sqlite');
    // Two agents' transcripts (January 2026) and a session of our own (November), all saying "summary".
    for (const file of [writeClaudeCode(dir), writeCodex(dir)]) assert.strictEqual((await cli('ingest', file, tape)).code, 0);
    const store = await TapeStore.open(tape);
    await store.appendMany('own', [
      {
        kind: 'anchor',
        name: 'session/start',
        provenanceKey: 'session/start',
        payload: { name: 'session/start', state: { sessionId: 'own' } },
        createdAt: NOV,
      },
      message('u1', 'user', 'Write the summary of 上下文压缩 for me', 1),
      message('a1', 'assistant', 'The summary: summary, summary.', 2),
    ]);
    await store.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const search = async (...args: string[]): Promise<SessionSearchResult> => {
    const r = await cli('search-all', tape, ...args, '--json');
    assert.strictEqual(r.code, 0, r.err);
    return JSON.parse(r.out) as SessionSearchResult;
  };

  it('--json: hits of every agent, best first, with their session facts; the words of the query all count', async () => {
    const { hits, total } = await search('summary');
    assert.strictEqual(total, hits.length);
    assert.deepStrictEqual([...new Set(hits.map((h) => h.agent))].sort(), ['agent-tape', 'claude-code', 'codex']);
    assert.deepStrictEqual([hits[0].sessionId, hits[0].entryId], ['own', 3], 'the entry saying it three times first');
    assert.deepStrictEqual(Object.keys(hits[0]), [
      'sessionId',
      'entryId',
      'kind',
      'name',
      'score',
      'snippet',
      'createdAt',
      'agent',
      'title',
      'sessionStartedAt',
    ]);
    assert.strictEqual(hits[0].title, 'Write the summary of 上下文压缩 for me');
    const claude = hits.find((h) => h.agent === 'claude-code');
    assert.strictEqual(claude?.sessionId, `claude-code:${CC_SESSION}`);
    assert.strictEqual(claude?.title, 'Fix the failing test');
    assert.strictEqual(hits.find((h) => h.agent === 'codex')?.sessionId, `codex:${CODEX_SESSION}`);
    const both = await search('summary', 'listed');
    assert.deepStrictEqual(
      both.hits.map((h) => h.sessionId),
      [`codex:${CODEX_SESSION}`],
      'every word required',
    );
    assert.deepStrictEqual(
      (await search('压缩')).hits.map((h) => [h.sessionId, h.entryId]),
      [['own', 2]],
    );
  });

  it('--agent (repeated), --since and --until (UTC days, included), --limit', async () => {
    assert.deepStrictEqual([...new Set((await search('summary', '--agent', 'codex')).hits.map((h) => h.agent))], ['codex']);
    assert.deepStrictEqual([...new Set((await search('summary', '--agent', 'codex', '--agent', 'claude-code')).hits.map((h) => h.agent))].sort(), [
      'claude-code',
      'codex',
    ]);
    assert.deepStrictEqual([...new Set((await search('summary', '--since', '2026-11-03')).hits.map((h) => h.sessionId))], ['own']);
    assert.deepStrictEqual((await search('summary', '--since', '2026-11-04')).hits, []);
    assert.deepStrictEqual([...new Set((await search('summary', '--until', '2026-01-02')).hits.map((h) => h.agent))].sort(), ['claude-code', 'codex']);
    const limited = await search('summary', '--limit', '1');
    assert.strictEqual(limited.hits.length, 1);
    assert.ok(limited.total > 1);
  });

  it('prints each hit with its session and the snippet, hits marked; says when nothing matched; an agent not on the tape is named', async () => {
    const r = await cli('search-all', tape, 'summary', '--agent', 'agent-tape', '--limit', '1');
    assert.strictEqual(r.code, 0, r.err);
    assert.match(
      r.out,
      /^own #3 message message\/assistant \(\d+(\.\d+)?\) agent-tape · Write the summary of 上下文压缩 for me · 2026-11-03\n {2}The «summary»: «summary», «summary»\.\n1 of 2 matches\n$/,
    );
    const none = await cli('search-all', tape, 'xylophone', '--agent', 'gemini');
    assert.deepStrictEqual([none.code, none.out], [0, 'no matches\n']);
    assert.match(none.err, /no session of gemini on this tape \(its agents: (claude-code|codex|agent-tape)(, (claude-code|codex|agent-tape)){2}\)/);
  });

  it('refuses what it cannot search for (exit 2): no words, a date that is none, a limit out of range', async () => {
    for (const [args, error] of [
      [['   '], /the query has no words/],
      [['x', '--since', '2026-02-30'], /--since must be a date as YYYY-MM-DD/],
      [['x', '--until', 'yesterday'], /--until must be a date/],
      [['x', '--limit', '0'], /--limit must be from 1 to 1000/],
      [['x', '--limit', '5000'], /--limit must be from 1 to 1000/],
      [[], /expected <tape> <query>/],
    ] as const) {
      const r = await cli('search-all', tape, ...args);
      assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.out}`);
      assert.match(r.err, error);
    }
    assert.strictEqual((await cli('search-all', tape, 'a.*(', '--json')).code, 0, 'a query is plain text, never a pattern');
  });
});
