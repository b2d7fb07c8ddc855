import * as assert from 'assert';
import fc from 'fast-check';
import { ingestFile } from '../../../../src/ingest/ingest';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { NewEntry } from '../../../../src/tape/entry';
import { isIngestedSession } from '../../../../src/tape/ingestedSession';
import { parseDay, queryFilters } from '../../../../src/tape/search/searchFilters';
import { SEARCH_TEXT_MAX, searchableText } from '../../../../src/tape/search/searchableText';
import { parseQuery } from '../../../../src/tape/search/searchQuery';
import { hitRanges } from '../../../../src/tape/search/searchSnippet';
import { searchTerms, searchTokens } from '../../../../src/tape/search/searchTokens';
import { SessionSearch, sessionSearchOf, type SessionSearchHit } from '../../../../src/tape/search/sessionSearch';
import { sessionTitleOf } from '../../../../src/tape/sessionTitle';
import { agentOf } from '../../../../src/tape/usage/usageStats';
import { CC_SESSION, CODEX_SESSION, writeClaudeCode, writeCodex } from '../../ingest/fixtures';
import { tempDir } from '../../store/helpers';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 12);

let seq = 0;
const msg = (
  role: 'user' | 'assistant',
  messageId: string,
  content: string,
  opts: { status?: 'pending' | 'sent'; at?: number; orderSeq?: number } = {},
): NewEntry => ({
  kind: 'message',
  name: `message/${role}`,
  payload: { messageId, role, status: opts.status ?? 'sent', orderSeq: opts.orderSeq ?? ++seq, content },
  ...(opts.at === undefined ? {} : { createdAt: opts.at }),
});
const call = (messageId: string, toolCallId: string, name: string, input: unknown): NewEntry => ({
  kind: 'tool_call',
  name,
  payload: { messageId, toolCallId, name, input },
});
const result = (messageId: string, toolCallId: string, name: string, output: unknown): NewEntry => ({
  kind: 'tool_result',
  name,
  payload: { messageId, toolCallId, status: 'ok', output },
});
const anchor = (name: string, state: unknown): NewEntry => ({ kind: 'anchor', name, payload: { name, state } });
const event = (name: string, data: unknown): NewEntry => ({ kind: 'event', name, payload: { name, data } });

/** The facts hosts give the index: the agent from the session's start (or its keys), the title the views show. */
const factsOf = (store: TapeStore) => ({
  agentOf: (sessionId: string) => {
    const first = store.entries(sessionId, { limit: 8 });
    return agentOf({
      sessionId,
      start: first[0],
      ingested: isIngestedSession(
        sessionId,
        first[0],
        first.map((e) => e.provenanceKey),
      ),
    });
  },
  titleOf: (sessionId: string) => sessionTitleOf(store, sessionId),
});

const fresh = (store: TapeStore) => new SessionSearch(store, factsOf(store));
const where = (hits: readonly { sessionId: string; entryId: number }[]) => hits.map((h) => `${h.sessionId}#${h.entryId}`);
/** The words a hit's snippet marks, as the text has them. */
const marked = (h: SessionSearchHit) => h.snippet.hits.map(([a, b]) => h.snippet.text.slice(a, b));

describe('search tokens', () => {
  it('words are NFKC-normalised and lower-cased, as the index holds them; punctuation, symbols and _ separate them; offsets are the text as written', () => {
    const text = 'Ｈｅｌｌｏ, WORLD! foo_bar STRASSE straße ﬁle Ω';
    const tokens = searchTokens(text);
    assert.deepStrictEqual(
      tokens.map((t) => t.term),
      ['hello', 'world', 'foo', 'bar', 'strasse', 'straße', 'file', 'ω'],
    );
    assert.deepStrictEqual(
      tokens.map((t) => text.slice(t.start, t.end)),
      ['Ｈｅｌｌｏ', 'WORLD', 'foo', 'bar', 'STRASSE', 'straße', 'ﬁle', 'Ω'],
    );
  });

  it('a CJK character is a token of its own; a CJK word of a query is the phrase of its characters; other scripts stop at it', () => {
    const text = '上下文压缩ok 第3章';
    const tokens = searchTokens(text);
    assert.deepStrictEqual(
      tokens.map((t) => t.term),
      ['上', '下', '文', '压', '缩', 'ok', '第', '3', '章'],
    );
    assert.deepStrictEqual(
      tokens.map((t) => text.slice(t.start, t.end)),
      ['上', '下', '文', '压', '缩', 'ok', '第', '3', '章'],
    );
    assert.deepStrictEqual(parseQuery('压缩', 'plain')?.words, [{ terms: ['压', '缩'], prefix: false }]);
    assert.strictEqual(parseQuery('压缩', 'plain')?.match, '"压 缩"');
    assert.deepStrictEqual(hitRanges(tokens, parseQuery('压缩', 'plain')?.words ?? []), [[3, 5]], 'the run marked, not its characters apart');
    // Half-width katakana with its voicing mark is the full-width syllable.
    assert.deepStrictEqual(parseQuery('ｶﾞｲﾄﾞ', 'plain')?.words, parseQuery('ガイド', 'plain')?.words);
    assert.deepStrictEqual(parseQuery('a.*b (', 'plain', true)?.words, [{ terms: ['a', 'b'], prefix: false }], 'a query is words, never a pattern');
  });

  it("property: the tokens are the index's (searchTerms, what FTS4 cuts the indexed text into), in order, each where the text says it", () => {
    const piece = fc.constantFrom(
      ...[
        'word',
        'Ünïcödé',
        'e\u0301',
        'ß',
        'ΣΟΦΟΣ',
        'ﬁ',
        'Ｈｉ',
        '①',
        '½',
        '压缩',
        'ｶﾞｲﾄﾞ',
        'ガイド',
        '한국어',
        '々',
        'ー',
        '。',
        '，',
        '…',
        '—',
        '\u00a0',
        '\u3000',
        '🙂',
        'İ',
        ' ',
        '\n',
        '_',
        '-',
        '.',
        '42',
        'x',
      ],
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        const tokens = searchTokens(text);
        assert.deepStrictEqual(
          tokens.map((t) => t.term),
          searchTerms(text),
        );
        for (let i = 0; i < tokens.length; i++) {
          const t = tokens[i];
          assert.ok(t.start < t.end && t.end <= text.length && (i === 0 || tokens[i - 1].start <= t.start), JSON.stringify(tokens));
          // Alone, a sigma may be final where the text's was not.
          const sigma = (x: string) => x.replace(/ς/g, 'σ');
          assert.ok(sigma(searchTerms(text.slice(t.start, t.end)).join('')).includes(sigma(t.term)), JSON.stringify(t));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('query filters', () => {
  it('takes agent:, since: and until: words out of the query; says what it could not read', () => {
    assert.deepStrictEqual(queryFilters('agent:gemini compaction  since:2026-11-01 agent:codex until:2026-11-30 ratio'), {
      text: 'compaction ratio',
      agents: ['gemini', 'codex'],
      since: { year: 2026, month: 11, day: 1 },
      until: { year: 2026, month: 11, day: 30 },
      problems: [],
    });
    const bad = queryFilters('since:2026-02-30 x agent: until:tomorrow');
    assert.strictEqual(bad.text, 'x');
    assert.strictEqual(bad.problems.length, 3, bad.problems.join('; '));
    assert.strictEqual(queryFilters('nosince:2026-01-01').text, 'nosince:2026-01-01', 'only whole words are filters');
    assert.strictEqual(parseDay('2024-02-29')?.day, 29);
    assert.strictEqual(parseDay('2023-02-29'), null);
  });
});

describe('Search All Sessions index', () => {
  let store: TapeStore;
  beforeEach(async () => {
    store = await TapeStore.inMemory();
    seq = 0;
  });
  afterEach(() => store.close());

  it('finds user and assistant messages, tool calls and results, compaction summaries (and their edits) and handoff notes; nothing else', async () => {
    await store.appendMany('s1', [
      msg('user', 'u1', 'Please look at the walrus config', { at: T0 }),
      msg('assistant', 'a1', 'Reading it now.', { at: T0 + 1 }),
      call('a1', 'c1', 'read_file', { path: 'walrus.toml' }),
      result('a1', 'c1', 'read_file', 'walrus = true'),
      anchor('compaction/manual', { summary: 'The walrus config was read.', cursorOrderSeq: 2 }),
      event('compaction/summary-edit', { anchorEntryId: 6, summary: 'Edited: walrus config read.' }),
      anchor('handoff/next', { summary: 'Hand over the walrus work', state: { todo: 'walrus tests' } }),
      event('provider/attempt', { note: 'walrus' }),
      anchor('memory/walrus', { note: 'walrus' }),
    ]);
    const { hits, total } = fresh(store).search('walrus');
    assert.strictEqual(total, 6);
    assert.deepStrictEqual(hits.map((h) => [h.kind, h.name]).sort(), [
      ['anchor', 'compaction/manual'],
      ['anchor', 'handoff/next'],
      ['event', 'compaction/summary-edit'],
      ['message', 'message/user'],
      ['tool_call', 'read_file'],
      ['tool_result', 'read_file'],
    ]);
    const user = hits.find((h) => h.name === 'message/user');
    assert.ok(user);
    assert.strictEqual(user.title, 'Please look at the walrus config');
    assert.strictEqual(user.agent, 'agent-tape');
    assert.strictEqual(user.createdAt, T0);
    assert.strictEqual(user.sessionStartedAt, store.getEntry('s1', 1)?.createdAt);
    assert.deepStrictEqual(marked(user), ['walrus']);
    assert.strictEqual(user.snippet.text, 'Please look at the walrus config');
    assert.deepStrictEqual(
      fresh(store)
        .search('reading now')
        .hits.map((h) => h.name),
      ['message/assistant'],
    );
  });

  it('a CJK query finds the word inside a longer run; one character finds it too; a phrase ranks above its bigrams apart', async () => {
    await store.appendMany('zh', [
      msg('user', 'u1', '请解释上下文压缩的原理'),
      msg('assistant', 'a1', '压力很大，缩短时间'),
      msg('assistant', 'a2', '数据库迁移已完成'),
    ]);
    const index = fresh(store);
    const found = index.search('压缩').hits;
    assert.deepStrictEqual(where(found), ['zh#2']);
    assert.deepStrictEqual(marked(found[0]), ['压缩']);
    assert.deepStrictEqual(where(index.search('压').hits).sort(), ['zh#2', 'zh#3']);
    assert.deepStrictEqual(where(index.search('上下文').hits), ['zh#2']);
    assert.deepStrictEqual(where(index.search('迁移').hits), ['zh#4']);
    assert.deepStrictEqual(index.search('压缩 原理').hits.length, 1);
    assert.deepStrictEqual(index.search('京都').hits, []);
  });

  it('ranks an entry with the word three times above one with it once (same length), and a phrase above the words apart', async () => {
    await store.appendMany('r', [
      msg('user', 'once', 'gamma delta epsilon zeta alpha'),
      msg('user', 'thrice', 'alpha delta alpha zeta alpha'),
      msg('user', 'apart', 'context was lost; compaction ran'),
      msg('user', 'phrase', 'the context compaction ran, lost'),
    ]);
    const index = fresh(store);
    assert.deepStrictEqual(where(index.search('alpha').hits), ['r#3', 'r#2']);
    const [first, second] = index.search('context compaction').hits;
    assert.strictEqual(first.entryId, 5, 'the phrase first');
    assert.strictEqual(second.entryId, 4);
    assert.ok(first.score > second.score);
  });

  it('counts a revised message with its text in force only (a pending version replaced by the sent one); the old words no longer find it', async () => {
    await store.appendMany('rev', [
      msg('user', 'u1', 'first draft mentions platypus'),
      msg('assistant', 'a1', 'streaming partial kangaroo', { status: 'pending' }),
    ]);
    const index = fresh(store);
    assert.strictEqual(index.search('platypus').total, 1);
    assert.strictEqual(index.search('kangaroo').total, 1, 'a pending message is shown, so it is found');
    await store.appendMany('rev', [
      msg('user', 'u1', 'second draft mentions wombat', { orderSeq: 1 }),
      msg('assistant', 'a1', 'final answer about emus', { orderSeq: 2 }),
    ]);
    assert.strictEqual(index.search('platypus').total, 0);
    assert.strictEqual(index.search('kangaroo').total, 0);
    assert.deepStrictEqual(where(index.search('wombat').hits), ['rev#4']);
    assert.deepStrictEqual(where(index.search('emus').hits), ['rev#5']);
    assert.strictEqual(index.search('draft mentions').total, 1, 'one message, once');
  });

  it('a recorded tool result replaces a crash-repair stand-in and is never replaced by one', async () => {
    await store.appendMany('t', [
      msg('assistant', 'a1', 'running'),
      call('a1', 'c1', 'run_command', { command: 'make' }),
      { ...result('a1', 'c1', 'run_command', 'interrupted: no result was recorded'), provenanceKey: 'interrupted/a1/c1' },
    ]);
    const index = fresh(store);
    assert.strictEqual(index.search('interrupted').total, 1);
    await store.append('t', result('a1', 'c1', 'run_command', 'build ok'));
    assert.strictEqual(index.search('interrupted').total, 0);
    assert.strictEqual(index.search('build').total, 1);
  });

  it('sessions of two agents ingested from their transcripts: hits name each agent; filters by agent and by date', async () => {
    const dir = tempDir();
    await ingestFile(store, writeClaudeCode(dir));
    await ingestFile(store, writeCodex(dir));
    await store.append('own', msg('user', 'u1', 'A summary of my own', { at: T0 }));
    const index = fresh(store);
    const hits = index.search('summary').hits;
    assert.deepStrictEqual([...new Set(hits.map((h) => h.agent))].sort(), ['agent-tape', 'claude-code', 'codex']);
    const claude = hits.find((h) => h.agent === 'claude-code');
    assert.strictEqual(claude?.sessionId, `claude-code:${CC_SESSION}`);
    assert.strictEqual(claude?.title, 'Fix the failing test');
    assert.strictEqual(hits.find((h) => h.agent === 'codex')?.sessionId, `codex:${CODEX_SESSION}`);
    assert.deepStrictEqual(
      index.search('summary', { agents: ['codex'] }).hits.map((h) => h.agent),
      ['codex'],
    );
    assert.deepStrictEqual([...new Set(index.search('summary', { agents: ['codex', 'agent-tape'] }).hits.map((h) => h.agent))].sort(), ['agent-tape', 'codex']);
    // The fixtures are from January 2026; the own session from November.
    assert.deepStrictEqual(
      index.search('summary', { from: T0 - DAY }).hits.map((h) => h.sessionId),
      ['own'],
    );
    assert.deepStrictEqual([...new Set(index.search('summary', { to: T0 - DAY }).hits.map((h) => h.agent))].sort(), ['claude-code', 'codex']);
    assert.deepStrictEqual(
      index.agents().map((a) => a.agent),
      ['claude-code', 'agent-tape', 'codex'],
      'the subagent is a Claude Code session too',
    );
  });

  it('with prefix, the last word matches the words it begins (search as you type); without, only itself', async () => {
    await store.appendMany('p', [msg('user', 'u1', 'the compaction finished'), msg('user', 'u2', 'compact disc')]);
    const index = fresh(store);
    assert.strictEqual(index.search('compa').total, 0);
    assert.deepStrictEqual(where(index.search('compa', { prefix: true }).hits).sort(), ['p#2', 'p#3']);
    const h = index.search('the compac', { prefix: true }).hits;
    assert.deepStrictEqual(where(h), ['p#2']);
    assert.deepStrictEqual(marked(h[0]), ['the', 'compaction']);
    assert.strictEqual(index.search('co', { prefix: true }).total, 0, 'two letters are a word, not a prefix');
  });

  it('a query is plain text (regex and FTS syntax are words); limits; an entry is searched whole, its snippet cut from its first 16 KiB', async () => {
    const long = `${'filler '.repeat(Math.ceil(SEARCH_TEXT_MAX / 7))} needle`;
    await store.appendMany('q', [msg('user', 'u1', 'a (b) [c] .* NOT OR'), msg('user', 'u2', long)]);
    const index = fresh(store);
    assert.strictEqual(index.search('(b) .*').total, 1);
    assert.strictEqual(index.search('not or').total, 1);
    const [needle] = index.search('needle').hits;
    assert.strictEqual(needle.entryId, 3, 'the tape index holds the whole text');
    assert.ok(needle.snippet.text.startsWith('filler filler') && needle.snippet.hits.length === 0, needle.snippet.text);
    assert.strictEqual(index.search('filler').total, 1);
    assert.deepStrictEqual(index.search('  ...  '), { hits: [], total: 0, exact: true });
    assert.throws(() => index.search('x', { limit: 0 }), /limit must be an integer/);
    const many = Array.from({ length: 30 }, (_, i) => msg('user', `m${i}`, `repeated word ${i}`));
    await store.appendMany('q', many);
    assert.strictEqual(index.search('repeated', { limit: 7 }).hits.length, 7);
    assert.strictEqual(index.search('repeated', { limit: 7 }).total, 30);
  });

  it('a snippet is one line around the first hit, cut with ellipses, its hits pointing at the words', async () => {
    const text = `${'lorem ipsum '.repeat(20)}\n\nthe\tTarget word\n${'dolor sit '.repeat(20)}`;
    await store.append('s', msg('user', 'u1', text));
    const [hit] = fresh(store).search('target').hits;
    assert.ok(hit.snippet.text.startsWith('…') && hit.snippet.text.endsWith('…'), hit.snippet.text);
    assert.ok(!/[\n\t]/.test(hit.snippet.text));
    assert.ok(hit.snippet.text.length <= 122, `${hit.snippet.text.length}`);
    assert.deepStrictEqual(marked(hit), ['Target']);
    assert.ok(hit.snippet.text.includes('the Target word'));
  });

  it('answers from the tape index at once after an append, and no longer finds a deleted session', async () => {
    await store.append('a', msg('user', 'u1', 'heron one'));
    await store.append('b', msg('user', 'u1', 'heron two'));
    const facts = { agentOf: () => 'agent-tape', titleOf: () => null };
    const index = sessionSearchOf(store, facts);
    assert.strictEqual(index, sessionSearchOf(store, facts), 'one per store');
    assert.strictEqual(index.search('heron').total, 2);
    await store.append('c', msg('user', 'u1', 'heron three'));
    assert.strictEqual(index.search('heron').total, 3, 'a new session, before the store announces it');
    await store.append('c', msg('user', 'u2', 'heron four'));
    assert.strictEqual(index.search('heron').total, 4);
    await store.deleteSession('a');
    assert.deepStrictEqual(where(index.search('heron').hits).sort(), ['b#2', 'c#2', 'c#3']);
  });

  it('a word in thousands of entries: the best hits as if every match were judged, the total estimated from those judged', async () => {
    for (let s = 0; s < 30; s++)
      await store.appendMany(
        `s${s}`,
        Array.from({ length: 100 }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `m${i}`, `egret ${'egret '.repeat((s * 7 + i) % 5)}note ${s} ${i}`)),
      );
    const index = new SessionSearch(store, { agentOf: () => 'agent-tape', titleOf: () => null });
    const few = index.search('egret', { limit: 5 });
    const all = index.search('egret', { limit: 1000 });
    assert.strictEqual(all.exact, true);
    assert.strictEqual(all.total, 3000);
    assert.strictEqual(few.exact, false);
    assert.ok(Math.abs(few.total - 3000) <= 300, `estimated ${few.total}`);
    assert.deepStrictEqual(where(few.hits), where(all.hits.slice(0, 5)));
  });

  it("reads the index, the matched entries and their messages' rows only: never a session, every entry, or the session list", async () => {
    for (let s = 0; s < 30; s++)
      await store.appendMany(`s${s}`, [
        msg('user', `u${s}`, `common words in session ${s}${s === 7 ? ' and the rare ocelot' : ''}`),
        msg('assistant', `a${s}`, 'common answer', { status: 'pending' }),
        msg('assistant', `a${s}`, 'common answer, final'),
        call(`a${s}`, `c${s}`, 'read_file', { path: `common/${s}` }),
        result(`a${s}`, `c${s}`, 'read_file', 'common output'),
      ]);
    const reads: string[] = [];
    const spied = store as unknown as Record<string, (...args: unknown[]) => unknown>;
    // Every read a store offers, counted: a search may read the index, the matches and their messages' rows.
    for (const name of ['sessions', 'headEntryId', 'foldRows', 'entries', 'rawEntries', 'getEntry', 'messageRows']) {
      if (typeof spied[name] !== 'function') continue;
      const fn = spied[name].bind(store);
      spied[name] = (...args: unknown[]) => {
        reads.push(`${name} ${JSON.stringify(args)}`);
        return fn(...args);
      };
    }
    const index = new SessionSearch(store, { agentOf: () => 'agent-tape', titleOf: () => null });
    assert.deepStrictEqual(where(index.search('ocelot').hits), ['s7#2']);
    assert.deepStrictEqual(reads.sort(), ['getEntry ["s7",1]', 'getEntry ["s7",2]', 'messageRows ["s7",["u7"]]']);
    reads.length = 0;
    const common = index.search('common', { limit: 5 });
    assert.strictEqual(common.total, 30 * 4, 'the pending version does not count');
    const rowsRead = reads.filter((r) => r.startsWith('messageRows'));
    assert.strictEqual(rowsRead.length, 30, 'one read per session with a match');
    assert.ok(
      rowsRead.every((r) => /^messageRows \["s(\d+)",\[("u\1","a\1"|"a\1","u\1")\]\]$/.test(r)),
      rowsRead.join('\n'),
    );
    assert.ok(reads.filter((r) => r.startsWith('getEntry')).length <= 64 + 5, 'entries read: the reranked best and the sessions started');
    assert.ok(!reads.some((r) => r.startsWith('sessions')));
  });

  /** Random sessions of messages (with revisions), tool calls and results over a small vocabulary. */
  const WORDS = ['alpha', 'beta', 'gamma', '压缩', '上下文', 'Delta', 'ÉCOLE', 'école'];
  const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
  const op = fc.oneof(
    fc.record({
      op: fc.constant('message' as const),
      session: fc.constantFrom('s1', 's2', 's3'),
      id: fc.integer({ min: 0, max: 4 }),
      role: fc.constantFrom('user' as const, 'assistant' as const),
      text,
    }),
    fc.record({ op: fc.constant('call' as const), session: fc.constantFrom('s1', 's2', 's3'), id: fc.integer({ min: 0, max: 2 }), text }),
    fc.record({ op: fc.constant('result' as const), session: fc.constantFrom('s1', 's2', 's3'), id: fc.integer({ min: 0, max: 2 }), text }),
    fc.record({ op: fc.constant('query' as const), query: text }),
  );

  type Op = { op: 'message' | 'call' | 'result' | 'query'; session?: string; id?: number; role?: 'user' | 'assistant'; text?: string; query?: string };

  /** Appends the ops (querying the index at each query op); returns the model: per session, each message's and call's last written text. */
  async function play(ops: readonly Op[], index: SessionSearch) {
    const inForce = new Map<string, { sessionId: string; entryId: number; text: string }>();
    const orderSeqs = new Map<string, number>();
    for (const o of ops) {
      if (o.op === 'query') {
        index.search(o.query ?? '');
        continue;
      }
      const sessionId = o.session ?? 's1';
      const messageId = `m${o.id}`;
      const key = `${sessionId}/${o.op}/${o.id}`;
      const t = o.text ?? '';
      let entry: NewEntry;
      if (o.op === 'message') {
        // A revision keeps its message's place.
        const orderSeq = orderSeqs.get(key) ?? ++seq;
        orderSeqs.set(key, orderSeq);
        entry = msg(o.role ?? 'user', messageId, t, { orderSeq });
      } else if (o.op === 'call') entry = call(messageId, `c${o.id}`, 'tool', { text: t });
      else entry = result(messageId, `c${o.id}`, 'tool', t);
      const [{ entry: stored }] = await store.appendMany(sessionId, [entry]);
      inForce.set(key, { sessionId, entryId: stored.entryId, text: o.op === 'call' ? `tool\ntext: ${t}` : t });
    }
    return inForce;
  }

  it('property: every hit holds every query term; every entry in force that holds them all is counted', async function () {
    this.timeout(60_000);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), text, fc.boolean(), async (ops, query, prefix) => {
        await store.close();
        store = await TapeStore.inMemory();
        const index = fresh(store);
        const inForce = await play(ops as Op[], index);
        const words = parseQuery(query, 'plain', prefix)?.words ?? [];
        // Every word, as the index matches it: the run of its terms, the last one begun when a prefix.
        const holds = (t: string) => {
          const tokens = searchTokens(t);
          return words.every((w) => hitRanges(tokens, [w]).length > 0);
        };
        const expected = [...inForce.values()].filter((d) => holds(d.text));
        const a = index.search(query, { prefix, limit: 1000 });
        assert.strictEqual(a.total, expected.length);
        assert.deepStrictEqual(where(a.hits).sort(), expected.map((d) => `${d.sessionId}#${d.entryId}`).sort());
        for (const h of a.hits) {
          const e = store.getEntry(h.sessionId, h.entryId);
          assert.ok(e && holds(searchableText(e)), `${h.sessionId}#${h.entryId} holds ${query}`);
        }
        for (let i = 1; i < a.hits.length; i++) assert.ok(a.hits[i - 1].score >= a.hits[i].score, 'best first');
      }),
      { numRuns: 60 },
    );
  });

  it("property: search-all finds what the store's search finds among the entries both cover, with its BM25 (times the phrase bonus)", async function () {
    this.timeout(60_000);
    const entryOf = fc.record({ session: fc.constantFrom('s1', 's2'), result: fc.boolean(), text });
    await fc.assert(
      fc.asyncProperty(fc.array(entryOf, { minLength: 1, maxLength: 30 }), text, async (entries, query) => {
        await store.close();
        store = await TapeStore.inMemory();
        let n = 0;
        // One version each (nothing for either engine to leave out): user messages and tool results.
        for (const e of entries) await store.append(e.session, e.result ? result(`m${++n}`, `c${n}`, 'tool', e.text) : msg('user', `m${++n}`, e.text));
        const all = fresh(store).search(query, { limit: 1000 });
        const fts = store.search(query, { limit: 1000 });
        assert.deepStrictEqual(where(all.hits).sort(), where(fts).sort());
        assert.strictEqual(all.total, fts.length);
        for (const h of all.hits) {
          const score = fts.find((f) => f.sessionId === h.sessionId && f.entryId === h.entryId)?.score ?? NaN;
          assert.ok(Math.abs(h.score - score) < 1e-3 || Math.abs(h.score - score * 1.5) < 1e-3, `${h.score} is ${score} or ${score * 1.5}`);
        }
      }),
      { numRuns: 60 },
    );
  });
});
