// Search All Sessions (src/tape/sessionSearch.ts) on a 100k-entry tape of 200 sessions: building
// the index at the first query, a warm query of each kind, catching up 100 appended entries, the
// heap the index holds; against the baseline of no index, every searchable entry read and
// tokenised for each query (what the first query costs anyway, and every query would without
// one), and, for scale, the store's FTS4 search of the same word (indexed on disk at append).
import { TapeStore } from '../src/store/tapeStore';
import { isSearchable, searchableText } from '../src/tape/searchableText';
import { queryTerms, searchTokens } from '../src/tape/searchTokens';
import { SessionSearch } from '../src/tape/sessionSearch';
import { median, proseOf, round, sessionRows, targets, time } from './common';
import type { RowTuple } from '../src/store/rowTuple';

const SESSIONS = 200;
const PER_SESSION = 500;
const TEXT_BYTES = 680;
const ROUNDS = 5;
const QUERIES = { commonWord: 'function', rareWord: 'xylophone', phrase: 'connection refused', cjkRun: '连接失败', prefix: 'migr' } as const;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const heapMiB = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function main(): Promise<void> {
  const rows: RowTuple[] = [];
  for (let s = 0; s < SESSIONS; s++) rows.push(...sessionRows(`s${s}`, PER_SESSION, TEXT_BYTES, (turn, bytes) => proseOf(s * PER_SESSION + turn, bytes)));
  const store = await TapeStore.inMemory(rows);
  const facts = { agentOf: () => 'agent-tape', titleOf: () => null };

  // Built as the first query builds it; the heap before and after, what the index keeps.
  const before = heapMiB();
  const index = new SessionSearch(store, facts);
  const buildMs = time(() => index.search(QUERIES.rareWord));
  const indexMiB = heapMiB() - before;
  const indexed = index.size;

  const warm = Object.fromEntries(
    Object.entries(QUERIES).map(([name, q]) => {
      const prefix = name === 'prefix';
      let hits = 0;
      const ms = median(Array.from({ length: ROUNDS }, () => time(() => (hits = index.search(q, { prefix }).total))));
      return [name, { ms: round(ms), hits }];
    }),
  ) as Record<keyof typeof QUERIES, { ms: number; hits: number }>;

  // The baseline: no index, each query reads and tokenises every searchable entry.
  const scan = (q: string): number => {
    const { terms } = queryTerms(q);
    let n = 0;
    for (const { sessionId } of store.sessions())
      for (const r of store.foldRows(sessionId, 0)) {
        if (!isSearchable(r)) continue;
        const e = store.getEntry(sessionId, r.entryId);
        const got = new Set(searchTokens(e === undefined ? '' : searchableText(e)).map((t) => t.term));
        if (terms.every((t) => got.has(t))) n++;
      }
    return n;
  };
  const scanMs = time(() => scan(QUERIES.rareWord));
  const ftsMs = median(Array.from({ length: ROUNDS }, () => time(() => store.search(QUERIES.commonWord, { limit: 50 }))));

  const catchUpMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const batch = sessionRows('grow', 100, TEXT_BYTES, (turn, bytes) => proseOf(1e6 + r * 100 + turn, bytes)).slice(1);
    await store.appendMany(
      's0',
      batch.map((t) => ({ kind: t[2], name: t[3], payload: JSON.parse(t[11]) as Record<string, unknown> })),
    );
    catchUpMs.push(time(() => index.search(QUERIES.rareWord)));
  }
  await store.close();

  const m = { buildMs, scanMs, ftsCommonWordMs: ftsMs, catchUp100Ms: median(catchUpMs) };
  console.log(
    JSON.stringify({
      sessions: SESSIONS,
      entries: SESSIONS * PER_SESSION,
      indexedEntries: indexed,
      textBytes: TEXT_BYTES,
      rounds: ROUNDS,
      note: 'buildMs is the first query (the index built from the store: fold rows, each searchable entry read and tokenised); scanMs the same query without an index; warm queries return the best 50 with snippets; catchUp100Ms a query after 100 entries were appended to one session; indexMiB the heap the index holds',
      ms: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)])),
      warm,
      indexMiB: round(indexMiB, 1),
      ratios: { scanVsWarmCommonWord: round(scanMs / warm.commonWord.ms, 1) },
      targets: targets({
        'warm query <= 50 ms (the common word)': warm.commonWord.ms <= 50,
        'warm query >= 10x faster than a scan': scanMs / warm.commonWord.ms >= 10,
        'catching up 100 entries <= 20 ms': m.catchUp100Ms <= 20,
        'build <= 2x a scan': buildMs <= 2 * scanMs,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
