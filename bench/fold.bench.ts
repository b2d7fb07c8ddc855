// Folding from the store: a full fold of a 100k-entry session against the same fold over a plain
// JS array, and an incremental fold of 100 new entries through FoldCache.
import { TapeStore } from '../src/store/tapeStore';
import { foldAll, foldRowOf, type FoldRow } from '../src/tape/fold';
import { FoldCache } from '../src/tape/foldCache';
import type { Entry } from '../src/tape/entry';
import { median, messageOf, round, sessionRows, targets, time } from './common';

const N = 100_000;
const ROUNDS = 7;

async function main(): Promise<void> {
  const tuples = sessionRows('s', N);
  const entries: Entry[] = tuples.map((t) => ({
    sessionId: t[0],
    entryId: t[1],
    kind: t[2],
    name: t[3],
    provenanceKey: t[4],
    createdAt: t[5],
    payload: JSON.parse(t[11]),
    meta: {},
  }));
  const array: FoldRow[] = entries.map(foldRowOf);
  const store = await TapeStore.inMemory(tuples);
  const opts = { includePending: false };

  const arrayMs: number[] = [];
  const storeWarmMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    arrayMs.push(time(() => foldAll(array, opts)));
    storeWarmMs.push(time(() => foldAll(store.foldRows('s', 0), opts)));
  }
  // Cold: the first read of a session after open goes through sql.js row by row.
  const storeColdMs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const fresh = await TapeStore.inMemory(tuples);
    storeColdMs.push(time(() => foldAll(fresh.foldRows('s', 0), opts)));
    await fresh.close();
  }

  const cache = new FoldCache(store);
  cache.view('s', opts);
  const incrementalMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const batch = Array.from({ length: 100 }, (_, i) => messageOf(N + r * 100 + i, 300));
    await store.appendMany('s', batch);
    incrementalMs.push(time(() => cache.view('s', opts)));
  }
  const refoldMs = median(Array.from({ length: 3 }, () => time(() => foldAll(store.foldRows('s', 0), opts))));
  await store.close();

  const m = {
    arrayFoldMs: median(arrayMs),
    storeFoldMs: median(storeWarmMs),
    storeColdFoldMs: median(storeColdMs),
    incremental100Ms: median(incrementalMs),
    fullRefoldMs: refoldMs,
  };
  const ratios = {
    storeVsArray: m.storeFoldMs / m.arrayFoldMs,
    coldStoreVsArray: m.storeColdFoldMs / m.arrayFoldMs,
    refoldVsIncremental: m.fullRefoldMs / m.incremental100Ms,
  };
  console.log(
    JSON.stringify({
      entries: N,
      rounds: ROUNDS,
      note: 'storeFoldMs reads rows through store.foldRows (its per-session row cache, kept current by appends); storeColdFoldMs is the first fold after open, reading every row from sql.js',
      ms: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)])),
      ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, round(v, 2)])),
      targets: targets({
        'full fold from store <= 2x array fold': ratios.storeVsArray <= 2,
        'cold full fold from store <= 2x array fold': ratios.coldStoreVsArray <= 2,
        'incremental 100 entries <= 0.5 ms': m.incremental100Ms <= 0.5,
        'incremental >= 100x cheaper than full refold': ratios.refoldVsIncremental >= 100,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
