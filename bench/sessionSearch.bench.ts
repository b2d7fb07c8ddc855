// Search All Sessions (src/tape/search/sessionSearch.ts) on a 100k-entry tape of 200 sessions, each query
// the first of a fresh process that opens the tape read-only (the CLI's `search-all`): its first
// and warm times, and the process's memory after; against the baseline of no index, every
// searchable entry read and tokenised (what the in-memory index built before issue 38 cost at
// least, in every process), and, for scale, the store's FTS4 search of the same words.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { preferBaselineWasm } from '../src/cli/baselineWasm';
import { writeFileDurably } from '../src/store/fsutil';
import { sessionAgentOf } from '../src/store/sessionAgent';
import { TapeStore } from '../src/store/tapeStore';
import { isSearchable, searchableText } from '../src/tape/search/searchableText';
import { parseQuery } from '../src/tape/search/searchQuery';
import { hitRanges } from '../src/tape/search/searchSnippet';
import { searchTokens } from '../src/tape/search/searchTokens';
import { SessionSearch } from '../src/tape/search/sessionSearch';
import { sessionTitleOf } from '../src/tape/sessionTitle';
import { median, proseOf, round, sessionRows, targets, tempDir, time } from './common';
import type { RowTuple } from '../src/store/rowTuple';

const SESSIONS = 200;
const PER_SESSION = 500;
const TEXT_BYTES = 680;
const ROUNDS = 3;
const WARM = 5;
const QUERIES = { commonWord: 'function', rareWord: 'xylophone', phrase: 'connection refused', cjkRun: '连接失败', prefix: 'migr' } as const;
type QueryName = keyof typeof QUERIES;

interface QueryRun {
  openMs: number;
  firstMs: number;
  warmMs: number;
  ftsWarmMs: number;
  hits: number;
  total: number;
  rssMiB: number;
  heapMiB: number;
}

const MiB = 2 ** 20;

/** Child, set up as the CLI's entry point: open the tape read-only, search-all `query` first and warm, the store's own search of it warm, the memory then. */
async function queryChild(file: string, name: QueryName): Promise<void> {
  preferBaselineWasm();
  const t0 = performance.now();
  const store = await TapeStore.open(file, { readOnly: true });
  const t1 = performance.now();
  const search = new SessionSearch(store, { agentOf: (id) => sessionAgentOf(store, id), titleOf: (id) => sessionTitleOf(store, id) });
  const options = { prefix: name === 'prefix' };
  let result = search.search(QUERIES[name], options);
  const t2 = performance.now();
  const warmMs = median(Array.from({ length: WARM }, () => time(() => (result = search.search(QUERIES[name], options)))));
  const ftsWarmMs = median(Array.from({ length: WARM }, () => time(() => store.search(`${QUERIES[name]}${options.prefix ? '*' : ''}`, { limit: 50 }))));
  const { rss, heapUsed } = process.memoryUsage();
  await store.close();
  const run: QueryRun = {
    openMs: t1 - t0,
    firstMs: t2 - t1,
    warmMs,
    ftsWarmMs,
    hits: result.hits.length,
    total: result.total,
    rssMiB: rss / MiB,
    heapMiB: heapUsed / MiB,
  };
  process.stdout.write(JSON.stringify(run));
}

/** Child, the baseline: no index, every searchable entry of every session read and tokenised for the query. */
async function scanChild(file: string, name: QueryName): Promise<void> {
  const store = await TapeStore.open(file, { readOnly: true });
  const words = parseQuery(QUERIES[name], 'plain')?.words ?? [];
  let total = 0;
  const ms = time(() => {
    for (const { sessionId } of store.sessions())
      for (const r of store.foldRows(sessionId, 0)) {
        if (!isSearchable(r)) continue;
        const e = store.getEntry(sessionId, r.entryId);
        const tokens = searchTokens(e === undefined ? '' : searchableText(e));
        if (words.every((w) => hitRanges(tokens, [w]).length > 0)) total++;
      }
  });
  const { rss } = process.memoryUsage();
  await store.close();
  process.stdout.write(JSON.stringify({ ms, total, rssMiB: rss / MiB }));
}

function spawnChild<T>(mode: string, file: string, name: QueryName): T {
  const res = spawnSync(process.execPath, [__filename, mode, file, name], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout) as T;
}

async function main(): Promise<void> {
  const dir = tempDir();
  const file = path.join(dir, 'all.tape.sqlite');
  try {
    const rows: RowTuple[] = [];
    for (let s = 0; s < SESSIONS; s++) rows.push(...sessionRows(`s${s}`, PER_SESSION, TEXT_BYTES, (turn, bytes) => proseOf(s * PER_SESSION + turn, bytes)));
    const bulk = await TapeStore.inMemory(rows);
    const bytes = bulk.snapshotBytes();
    await bulk.close();
    await writeFileDurably(file, [bytes], true);

    const runs: Partial<Record<QueryName, QueryRun[]>> = {};
    const scans: { ms: number; total: number; rssMiB: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of Object.keys(QUERIES) as QueryName[]) (runs[name] ??= []).push(spawnChild<QueryRun>('--query', file, name));
      scans.push(spawnChild('--scan', file, 'rareWord'));
    }
    const med = (rs: QueryRun[], k: keyof QueryRun, digits = 1): number => round(median(rs.map((x) => x[k])), digits);
    const perQuery = Object.fromEntries(
      Object.entries(runs).map(([name, rs]) => [
        name,
        {
          query: QUERIES[name as QueryName],
          hits: rs[0].hits,
          total: rs[0].total,
          firstMs: med(rs, 'firstMs'),
          warmMs: med(rs, 'warmMs'),
          storeSearchWarmMs: med(rs, 'ftsWarmMs'),
          rssMiB: med(rs, 'rssMiB', 0),
          heapMiB: med(rs, 'heapMiB', 0),
        },
      ]),
    ) as Record<
      QueryName,
      { query: string; hits: number; total: number; firstMs: number; warmMs: number; storeSearchWarmMs: number; rssMiB: number; heapMiB: number }
    >;
    const all = Object.values(runs).flat();
    const slowestFirst = Math.max(...Object.values(perQuery).map((q) => q.firstMs));
    const scanMs = median(scans.map((s) => s.ms));
    console.log(
      JSON.stringify({
        sessions: SESSIONS,
        entries: SESSIONS * PER_SESSION,
        textBytes: TEXT_BYTES,
        snapshotMB: round(bytes.length / 1e6, 1),
        rounds: ROUNDS,
        note: 'each query in a fresh process after a read-only open: firstMs its first search-all (best 50 with snippets), warmMs the same again, storeSearchWarmMs the store search of the same words; rssMiB/heapMiB after; scan is the baseline without an index (every searchable entry read and tokenised)',
        openReadOnlyMs: round(median(all.map((x) => x.openMs)), 1),
        queries: perQuery,
        scan: { ms: round(scanMs, 0), total: scans[0].total, rssMiB: round(median(scans.map((s) => s.rssMiB)), 0) },
        ratios: {
          scanVsSlowestFirst: round(scanMs / slowestFirst, 1),
          commonWordVsStoreSearch: round(perQuery.commonWord.warmMs / perQuery.commonWord.storeSearchWarmMs, 2),
        },
        targets: targets({
          'first query in a fresh process < 1 s (slowest query)': slowestFirst < 1000,
          'warm common word <= 250 ms': perQuery.commonWord.warmMs <= 250,
          'first query >= 10x faster than a scan': scanMs / slowestFirst >= 10,
        }),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [mode, fileArg, nameArg] = process.argv.slice(2);
(mode === '--query' ? queryChild(fileArg, nameArg as QueryName) : mode === '--scan' ? scanChild(fileArg, nameArg as QueryName) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
