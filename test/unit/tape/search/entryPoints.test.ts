import * as assert from 'assert';
import fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OpenTape } from '../../../../src/agent/session/openTape';
import { pickQuery } from '../../../../src/extension/search/pickQuery';
import { EntryQuery } from '../../../../src/inspector/entryQuery';
import type { SearchHit } from '../../../../src/store/search';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { NewEntry } from '../../../../src/tape/entry';
import { markedText } from '../../../../src/tape/search/searchSnippet';
import { sessionSearchOf, type SessionSearchResult } from '../../../../src/tape/search/sessionSearch';
import { cli } from '../../cli/build';

/**
 * One engine (issue 35): for random tapes and queries (words in any case, CJK runs and their
 * characters, prefixes), every entry point gives the same hits in the same order for the same
 * scope: the CLI's `search` and `search-all`, `tape_search`'s port, the inspector's text filter and
 * the plain-Node function Search All Sessions' pick calls. The tapes hold what both `search` (every
 * row) and `search-all` (what transcripts show, in force) search alike: one version of each message,
 * call and result.
 */

const WORDS = [
  'Compaction',
  'compact',
  'COMPACTED',
  'ratio',
  'Ratio',
  'über',
  'Über',
  'straße',
  '上下文压缩',
  '压缩',
  '数据库',
  'ガイド',
  'ｶﾞｲﾄﾞ',
  'x9',
  'context',
];
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
const entry = fc.record({
  session: fc.constantFrom('s1', 's2'),
  kind: fc.constantFrom('user', 'assistant', 'call', 'result'),
  text: words,
  at: fc.integer({ min: 0, max: 3 }),
});

/** A query word: a word of the vocabulary in any case, a CJK character or run inside one, or a prefix. */
const queryWord = fc.oneof(
  fc.tuple(fc.constantFrom(...WORDS), fc.boolean()).map(([w, upper]) => (upper ? w.toUpperCase() : w.toLowerCase())),
  fc.constantFrom('上下文', '文压', '压', '据库', 'ガイ', 'ド'),
  fc.constantFrom('comp*', 'Compac*', 'ra*', 'üb*', 'x*'),
);
const query = fc.array(queryWord, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

const T0 = Date.UTC(2026, 10, 1);

function entriesOf(specs: readonly { kind: string; text: string; at: number }[]): NewEntry[] {
  return specs.map((s, i) => {
    const createdAt = T0 + s.at * 60_000;
    const messageId = `m${i}`;
    if (s.kind === 'call')
      return { kind: 'tool_call', name: 'tool', payload: { messageId, toolCallId: `c${i}`, name: 'tool', input: { q: s.text } }, createdAt };
    if (s.kind === 'result') return { kind: 'tool_result', name: 'tool', payload: { messageId, toolCallId: `c${i}`, status: 'ok', output: s.text }, createdAt };
    const role = s.kind as 'user' | 'assistant';
    return { kind: 'message', name: `message/${role}`, payload: { messageId, role, status: 'sent', orderSeq: i + 1, content: s.text }, createdAt };
  });
}

/** A hit as every entry point can say it: where, its score and its snippet with the hits marked. */
const said = (h: { sessionId: string; entryId: number; score: number }, snippet: string): string => `${h.sessionId}#${h.entryId} ${h.score} ${snippet}`;

describe('one search engine: every entry point', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-entry-points-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const json = async <T>(...argv: string[]): Promise<T> => {
    const r = await cli(...argv, '--json');
    assert.strictEqual(r.code, 0, r.err);
    return JSON.parse(r.out) as T;
  };

  it('property: the same hits in the same order for the same query and scope (tape, session)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 24 }), query, async (specs, q) => {
        const file = path.join(dir, `t${++n}.tape.sqlite`);
        const writer = await TapeStore.open(file);
        for (const s of ['s1', 's2'] as const) {
          const own = specs.filter((e) => e.session === s);
          if (own.length > 0) await writer.appendMany(s, entriesOf(own));
        }
        await writer.close();

        const store = await TapeStore.open(file, { readOnly: true });
        try {
          const open = new OpenTape(store);
          const facts = { agentOf: () => 'agent-tape', titleOf: () => null };
          // The whole tape: `search`, `search-all`, and what Search All Sessions' pick shows (typed, then a space: no word still being typed).
          const cliSearch = (await json<SearchHit[]>('search', file, q, '--limit', '100')).map((h) => said(h, h.snippet));
          const all = await json<SessionSearchResult>('search-all', file, q, '--limit', '100');
          const cliAll = all.hits.map((h) => said(h, markedText(h.snippet)));
          const picked = pickQuery(sessionSearchOf(store, facts), `${q} `, { agents: [], from: null });
          const pick = picked.hits.map((h) => said(h, markedText(h.snippet)));
          assert.deepStrictEqual(cliAll, cliSearch, 'search-all and search');
          assert.deepStrictEqual(pick, cliSearch, 'the pick and search');
          assert.strictEqual(all.total, cliSearch.length);
          assert.strictEqual(picked.total, cliSearch.length);

          // One session: `search --session`, `search-all --session`, tape_search's port, the inspector's filter.
          for (const s of ['s1', 's2']) {
            if (!specs.some((e) => e.session === s)) continue;
            const one = (await json<SearchHit[]>('search', file, q, '--session', s, '--limit', '50')).map((h) => said(h, h.snippet));
            const oneAll = (await json<SessionSearchResult>('search-all', file, q, '--session', s, '--limit', '50')).hits.map((h) =>
              said(h, markedText(h.snippet)),
            );
            const port = open
              .session(s)
              .tapePort()
              .search(q, { limit: 50 })
              .map((h) => said(h, h.snippet));
            const inspector = new EntryQuery(open.reader).page(s, { text: q }, 0, 50).rows.map((r) => `${s}#${r.entryId}`);
            assert.deepStrictEqual(oneAll, one, `search-all --session ${s}`);
            assert.deepStrictEqual(port, one, `tape_search in ${s}`);
            assert.deepStrictEqual(
              inspector,
              one.map((h) => h.split(' ')[0]),
              `the inspector in ${s}`,
            );
            assert.deepStrictEqual(
              one,
              cliSearch.filter((h) => h.startsWith(`${s}#`)),
              `${s}'s hits are the tape's in ${s}`,
            );
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
