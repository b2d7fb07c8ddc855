// `agent-tape append` end to end: 20k JSON lines of ~1 KB piped into the bundled CLI (a fresh
// process: start-up, open, parse, validate, journal, acknowledgements, close-time checkpoint all
// count) against better-sqlite3 (WAL, synchronous=FULL, one transaction per entry) doing the same
// inserts in process, from opening the database to closing it. scripts/bench.mjs bundles the CLI beside this bench as cli.js.
import Database from 'better-sqlite3';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { median, messageOf, round, targets, tempDir } from './common';

const ROUNDS = 3;
const N = 20_000;
const CLI = path.join(__dirname, 'cli.js');

/** Runs the CLI on `input`; resolves with the seconds it took and the acknowledgement lines it printed. */
function cliAppend(file: string, input: Buffer, durable: boolean): Promise<{ seconds: number; acks: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, 'append', file, '--session', 's', ...(durable ? ['--durable'] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    let acks = 0;
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      for (const b of d) if (b === 10) acks++;
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) reject(new Error(`agent-tape append exited ${code}: ${err}`));
      else resolve({ seconds, acks });
    });
    child.stdin.end(input);
  });
}

/**
 * The same work from open to close: creating the database, and closing it, which checkpoints the
 * WAL into the database file as the CLI's close checkpoints its journal into the snapshot. Only
 * the process start-up is the CLI's alone.
 */
function betterSqlite(file: string, entries: readonly string[]): number {
  const t0 = performance.now();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'CREATE TABLE entries (id INTEGER PRIMARY KEY, session_id TEXT, entry_id INTEGER, kind TEXT, name TEXT, payload TEXT, meta TEXT, created_at INTEGER, UNIQUE (session_id, entry_id))',
  );
  const insert = db.prepare('INSERT INTO entries (session_id, entry_id, kind, name, payload, meta, created_at) VALUES (?,?,?,?,?,?,?)');
  entries.forEach((line, i) => {
    // Parsed from the same JSON lines the CLI reads, so both sides pay for JSON.
    const e = JSON.parse(line) as { kind: string; name: string; payload: unknown };
    db.transaction(() => insert.run('s', i + 1, e.kind, e.name, JSON.stringify(e.payload), '{}', Date.now()))();
  });
  db.close();
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run this through scripts/bench.mjs, which bundles the CLI beside it`);
  const lines = Array.from({ length: N }, (_, i) => JSON.stringify(messageOf(i + 1)));
  const input = Buffer.from(`${lines.join('\n')}\n`);
  const dir = tempDir();
  const f = { cli: [] as number[], cliDurable: [] as number[], betterSqlite: [] as number[] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const plain = await cliAppend(path.join(dir, `c${r}.tape.sqlite`), input, false);
      const durable = await cliAppend(path.join(dir, `d${r}.tape.sqlite`), input, true);
      for (const run of [plain, durable]) if (run.acks !== N) throw new Error(`expected ${N} acknowledgements, got ${run.acks}`);
      f.cli.push(N / plain.seconds);
      f.cliDurable.push(N / durable.seconds);
      f.betterSqlite.push(N / betterSqlite(path.join(dir, `b${r}.db`), lines));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const m = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(median(v), 0)])) as Record<keyof typeof f, number>;
  const ratios = { cliVsBetterSqlite: round(m.cli / m.betterSqlite), cliDurableVsBetterSqlite: round(m.cliDurable / m.betterSqlite) };
  console.log(
    JSON.stringify({
      unit: 'appends per second (1 KB JSON lines), median of rounds; the CLI figures include process start-up and the close-time checkpoint',
      rounds: ROUNDS,
      entries: N,
      opsPerSecond: m,
      ratios,
      targets: targets({ 'CLI append >= 3x better-sqlite3': ratios.cliVsBetterSqlite >= 3 }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
