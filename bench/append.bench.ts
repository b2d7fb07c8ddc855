// Append throughput: the tape store against better-sqlite3 (WAL, synchronous=FULL, one transaction
// per entry) and against a raw JSON-lines file with the same group commit (the physical limit).
import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as path from 'path';
import { GroupCommitWriter } from '../src/store/groupCommit';
import { TapeStore } from '../src/store/tapeStore';
import { median, messageOf, round, targets, tempDir } from './common';

const ROUNDS = 7;
const DURABLE_N = 600;
const INFLIGHT_N = 6000;
const WINDOW = 500; // appends in flight at once

async function storeDurable(dir: string, r: number): Promise<number> {
  const s = await TapeStore.open(path.join(dir, `d${r}.tape.sqlite`));
  await s.append('s', messageOf(0), { durable: true });
  const t0 = performance.now();
  for (let i = 1; i <= DURABLE_N; i++) await s.append('s', messageOf(i), { durable: true });
  const ops = DURABLE_N / ((performance.now() - t0) / 1000);
  await s.close();
  return ops;
}

function betterSqlite(dir: string, r: number, n: number): number {
  const db = new Database(path.join(dir, `b${r}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'CREATE TABLE entries (id INTEGER PRIMARY KEY, session_id TEXT, entry_id INTEGER, kind TEXT, name TEXT, payload TEXT, meta TEXT, created_at INTEGER, UNIQUE (session_id, entry_id))',
  );
  const insert = db.prepare('INSERT INTO entries (session_id, entry_id, kind, name, payload, meta, created_at) VALUES (?,?,?,?,?,?,?)');
  const t0 = performance.now();
  for (let i = 1; i <= n; i++) {
    const e = messageOf(i);
    db.transaction(() => insert.run('s', i, e.kind, e.name, JSON.stringify(e.payload), '{}', Date.now()))();
  }
  const ops = n / ((performance.now() - t0) / 1000);
  db.close();
  return ops;
}

async function inFlight(append: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let base = 0; base < INFLIGHT_N; base += WINDOW) {
    const batch: Promise<unknown>[] = [];
    for (let i = base; i < base + WINDOW; i++) batch.push(append(i));
    await Promise.all(batch);
  }
  return INFLIGHT_N / ((performance.now() - t0) / 1000);
}

async function storeGroupCommit(dir: string, r: number): Promise<number> {
  const s = await TapeStore.open(path.join(dir, `g${r}.tape.sqlite`), { checkpointBytes: 1 << 30 });
  await s.append('s', messageOf(0));
  const ops = await inFlight((i) => s.append('s', messageOf(i + 1)));
  await s.close();
  return ops;
}

async function rawJsonl(dir: string, r: number): Promise<number> {
  const fd = fs.openSync(path.join(dir, `raw${r}.jsonl`), 'w');
  const w = new GroupCommitWriter(fd, 0, { groupCommitMs: 5, preallocateBytes: 1 << 20 }); // the journal's own settings
  let entryId = 0;
  const ops = await inFlight((i) => {
    const e = messageOf(i + 1);
    const line = JSON.stringify({
      sessionId: 's',
      entryId: ++entryId,
      kind: e.kind,
      name: e.name,
      provenanceKey: null,
      payload: e.payload,
      meta: {},
      createdAt: Date.now(),
    });
    return w.write(Buffer.from(`${line}\n`), false);
  });
  fs.closeSync(await w.close());
  return ops;
}

async function main(): Promise<void> {
  const dir = tempDir();
  const f = { storeDurable: [] as number[], betterSqliteDurable: [] as number[], storeGroupCommit: [] as number[], rawJsonlGroupCommit: [] as number[] };
  try {
    // Round -1 warms up the JIT and sql.js's WASM tier-up (better-sqlite3 is native and needs none)
    // and is not counted; the measured rounds then alternate the contenders.
    for (let r = -1; r < ROUNDS; r++) {
      const round = {
        storeDurable: await storeDurable(dir, r),
        betterSqliteDurable: betterSqlite(dir, r, DURABLE_N),
        storeGroupCommit: await storeGroupCommit(dir, r),
        rawJsonlGroupCommit: await rawJsonl(dir, r),
      };
      if (r >= 0) for (const k of Object.keys(f) as (keyof typeof f)[]) f[k].push(round[k]);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const m = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(median(v), 0)])) as Record<keyof typeof f, number>;
  const ratios = {
    durableVsBetterSqlite: round(m.storeDurable / m.betterSqliteDurable),
    groupCommitVsBetterSqlite: round(m.storeGroupCommit / m.betterSqliteDurable),
    groupCommitVsRawJsonl: round(m.storeGroupCommit / m.rawJsonlGroupCommit),
  };
  console.log(
    JSON.stringify({
      unit: 'appends per second (1 KB entries), median of rounds',
      rounds: ROUNDS,
      warmUpRounds: 1,
      durableAppends: DURABLE_N,
      inFlightAppends: { total: INFLIGHT_N, window: WINDOW },
      opsPerSecond: m,
      ratios,
      targets: targets({
        'durable >= 0.9x better-sqlite3': ratios.durableVsBetterSqlite >= 0.9,
        'group commit >= 6x better-sqlite3': ratios.groupCommitVsBetterSqlite >= 6,
        'group commit >= 0.5x raw JSONL': ratios.groupCommitVsRawJsonl >= 0.5,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
