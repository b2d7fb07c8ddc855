// A heavy user's whole history on one tape, met the way a user's commands meet it: N sessions of an
// agent's work (about B MB; default 250 sessions, 50 MB; BIG_TAPE_MB=2048 BIG_TAPE_SESSIONS=10000
// for the 2 GB figure) built once through the store and cached under the temp folder, then every
// command a fresh process of a bundled CLI: `view` of a session in the middle, `info`, `search` and
// `search-all` for a word, and `append` of one entry to a copy (a writable open, the append, the
// close). Each runs with this tree's bundle and the baseline revision's, alternating on the same
// tape; medians of wall time (process start to exit) and of peak RSS (the child's own VmHWM,
// printed at exit by a preloaded hook). A baseline that refuses the tape is recorded with its error.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { journalPathOf } from '../src/store/journal';
import { SCHEMA_VERSION } from '../src/store/schema';
import { TapeStore } from '../src/store/tapeStore';
import type { NewEntry } from '../src/tape/entry';
import { handoffAnchorEntry } from '../src/tape/handoffAnchor';
import { median, proseOf, random, round, targets } from './common';

const MB = Number(process.env.BIG_TAPE_MB ?? 50);
const SESSIONS = Number(process.env.BIG_TAPE_SESSIONS ?? 250);
const ROUNDS = 3;
const BASELINE = '505d866';
const WORD = 'xylophone';
// Bumped whenever the generated sessions change, so a cached tape of the old kind is not reused.
const GENERATOR_VERSION = 2;
// Bytes on disk per byte of entry text: JSON, row columns and the full-text index (measured on the
// 50 MB tape); the text budget is the size asked for divided by it. Bigger tapes come out bigger
// (1,024 asked: 1,205 MB; 850: 991 MB), so the output reports the size made.
const DISK_PER_TEXT_BYTE = 1.85;
const TOOLS = ['read_file', 'search_text', 'run_command', 'list_dir'] as const;

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(os.tmpdir(), 'agent-tape-bench-bigtape');
const CURRENT_CLI = path.join(__dirname, 'cli.js');
const MARK = '@@bigTape ';

const sessionIdOf = (i: number): string => `session-${String(i).padStart(5, '0')}`;

/** One session's turns, each a batch the agent would append at once; `nextText` numbers texts across the tape. */
function sessionTurns(i: number, textBytes: number, nextText: (bytes: number) => string): NewEntry[][] {
  const rand = random(i * 7919 + 1);
  // Sizes from `from` up to e^spread times it, as tool output is: mostly small, some huge.
  const size = (from: number, spread: number): number => Math.round(from * Math.exp(rand() * spread));
  const budget = textBytes * (0.25 + 1.5 * rand());
  const turns: NewEntry[][] = [];
  let used = 0;
  let orderSeq = 0;
  const message = (role: 'user' | 'assistant', messageId: string, status: 'sent' | 'pending', content: string): NewEntry => {
    used += content.length;
    return { kind: 'message', name: `message/${role}`, payload: { messageId, role, status, orderSeq, content } };
  };
  for (let t = 0; used < budget; t++) {
    const turn: NewEntry[] = [];
    orderSeq++;
    turn.push(message('user', `u${t}`, 'sent', nextText(size(50, 3.4))));
    const calls = Math.floor(rand() * 4);
    if (calls > 0) {
      orderSeq++;
      const asking = `a${t}-tools`;
      turn.push(message('assistant', asking, 'sent', nextText(size(40, 2))));
      for (let k = 0; k < calls; k++) {
        const name = TOOLS[Math.floor(rand() * TOOLS.length)];
        const toolCallId = `c${t}-${k}`;
        const input =
          name === 'run_command'
            ? { command: `npm test -- ${nextText(30)}` }
            : name === 'search_text'
              ? { query: nextText(20) }
              : { path: `src/${nextText(16).replace(/\W+/g, '/')}.ts` };
        const output = nextText(Math.min(size(200, 5), 64_000));
        used += output.length;
        turn.push({ kind: 'tool_call', name, payload: { messageId: asking, toolCallId, name, input } });
        turn.push({ kind: 'tool_result', name, payload: { messageId: asking, toolCallId, status: rand() < 0.05 ? 'error' : 'ok', output } });
      }
    }
    orderSeq++;
    const answer = nextText(size(200, 2.7));
    // A streamed answer leaves a pending revision before its final one now and then.
    if (rand() < 0.2) turn.push(message('assistant', `a${t}`, 'pending', answer.slice(0, answer.length >> 1)));
    turn.push(message('assistant', `a${t}`, 'sent', answer));
    if (t % 20 === 19) turn.push(handoffAnchorEntry(`progress-${t}`, nextText(1_500), { turn: t }));
    turns.push(turn);
  }
  return turns;
}

interface TapeFacts {
  file: string;
  snapshotMB: number;
  /** What the store left in the journal at close (it checkpoints at close only past an eighth of the snapshot). */
  journalMB: number;
  entries: number;
  builtNowSeconds: number | null;
}

/** The cached tape for these parameters, built (through the store, its own checkpoints) when missing. */
async function tape(): Promise<TapeFacts> {
  const key = `s${SCHEMA_VERSION}-g${GENERATOR_VERSION}-${MB}mb-${SESSIONS}s`;
  const dir = path.join(CACHE, key);
  const file = path.join(dir, 'big.tape.sqlite');
  const factsFile = path.join(dir, 'facts.json');
  if (fs.existsSync(factsFile)) return { ...(JSON.parse(fs.readFileSync(factsFile, 'utf8')) as Omit<TapeFacts, 'file'>), file, builtNowSeconds: null };
  // Built aside and renamed when complete, so an interrupted build is never taken for a tape.
  const building = `${dir}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  const t0 = performance.now();
  const store = await TapeStore.open(path.join(building, 'big.tape.sqlite'), { indexInWorker: true });
  let texts = 0;
  const nextText = (bytes: number): string => proseOf(texts++, bytes);
  let entries = 0;
  const textBytes = (MB * 1e6) / SESSIONS / DISK_PER_TEXT_BYTE;
  for (let i = 0; i < SESSIONS; i++) {
    const turns = sessionTurns(i, textBytes, nextText);
    // Appends in flight together, as a busy agent's are: one group commit for many.
    await Promise.all(turns.map((turn) => store.appendMany(sessionIdOf(i), turn)));
    entries += turns.reduce((n, t) => n + t.length, 1);
    if (i % Math.ceil(SESSIONS / 10) === 0) process.stderr.write(`[bigTape] building: ${i}/${SESSIONS} sessions, ${entries} entries\n`);
  }
  await store.close();
  const built = path.join(building, 'big.tape.sqlite');
  const facts = { snapshotMB: round(fs.statSync(built).size / 1e6, 1), journalMB: round(fs.statSync(journalPathOf(built)).size / 1e6, 1), entries };
  fs.writeFileSync(path.join(building, 'facts.json'), JSON.stringify(facts));
  fs.renameSync(building, dir);
  return { ...facts, file, builtNowSeconds: round((performance.now() - t0) / 1000, 1) };
}

/** The baseline revision's CLI bundle (and its index worker and WASM beside it), built once from `git archive`. */
function baselineCli(): string {
  const dir = path.join(CACHE, `baseline-${BASELINE}`);
  const cli = path.join(dir, 'cli.js');
  if (fs.existsSync(cli)) return cli;
  const building = `${dir}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  execFileSync('tar', ['-x', '-C', building], {
    input: execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', BASELINE, 'src', 'tsconfig.json'], { maxBuffer: 1 << 30 }),
  });
  // Its imports resolve from this repository's install.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(building, 'node_modules'));
  const esbuild = path.join(ROOT, 'node_modules', '.bin', 'esbuild');
  for (const [entry, out] of [
    ['src/cli/main.ts', 'cli.js'],
    ['src/store/indexWorker.ts', 'indexWorker.js'],
  ])
    execFileSync(esbuild, [entry, '--bundle', '--platform=node', '--target=node20', '--format=cjs', '--log-level=warning', `--outfile=${out}`], {
      cwd: building,
    });
  fs.copyFileSync(path.join(ROOT, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), path.join(building, 'sql-wasm.wasm'));
  fs.renameSync(building, dir);
  return cli;
}

/**
 * Preloaded into each child: its peak RSS on stderr as it exits, however it exits. VmHWM, not
 * getrusage's maxRSS: Linux carries maxRSS over fork and exec, so a child's would be at least this
 * (big) process's own.
 */
function rssHook(): string {
  const hook = path.join(CACHE, 'rss-hook.js');
  fs.writeFileSync(
    hook,
    `process.on('exit', () => {
  const fs = require('fs');
  const kB = Number(/VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
  fs.writeSync(2, '\\n${MARK}' + JSON.stringify({ peakRssKB: kB }) + '\\n');
});\n`,
  );
  return hook;
}

interface Run {
  ms: number;
  peakRssMB: number;
  outputBytes: number;
  error?: string;
}

function runCli(hook: string, cli: string, args: string[], input?: string): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, cli, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  const marked = r.stderr.split('\n').find((l) => l.startsWith(MARK));
  const peakRssMB = marked ? (JSON.parse(marked.slice(MARK.length)) as { peakRssKB: number }).peakRssKB / 1024 : NaN;
  const run: Run = { ms, peakRssMB, outputBytes: r.stdout.length };
  if (r.status !== 0) run.error = r.stderr.split('\n').find((l) => l.trim() !== '' && !l.startsWith(MARK)) ?? `exit ${r.status}`;
  return run;
}

type Measure = 'view' | 'info' | 'search' | 'searchAll' | 'append';

/** One command on the tape; `append` writes to a fresh copy of it, so the cached tape stays as built. */
function measure(hook: string, cli: string, file: string, m: Measure): Run {
  const middle = sessionIdOf(Math.floor(SESSIONS / 2));
  if (m === 'view') return runCli(hook, cli, ['view', file, '--session', middle, '--json']);
  if (m === 'info') return runCli(hook, cli, ['info', file, '--json']);
  if (m === 'search') return runCli(hook, cli, ['search', file, WORD, '--json']);
  if (m === 'searchAll') return runCli(hook, cli, ['search-all', file, WORD, '--json']);
  const work = fs.mkdtempSync(path.join(CACHE, 'append-'));
  try {
    const copy = path.join(work, path.basename(file));
    fs.copyFileSync(file, copy);
    if (fs.existsSync(journalPathOf(file))) fs.copyFileSync(journalPathOf(file), journalPathOf(copy));
    const line = JSON.stringify({
      kind: 'message',
      name: 'message/user',
      payload: { messageId: 'bench-append', role: 'user', status: 'sent', orderSeq: 1e6, content: 'one more question' },
    });
    return runCli(hook, cli, ['append', copy, '--session', middle], `${line}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

interface Summary {
  ms?: number;
  peakRssMB?: number;
  outputBytes?: number;
  error?: string;
}

function summary(runs: Run[]): Summary {
  const failed = runs.find((r) => r.error !== undefined);
  if (failed) return { error: failed.error, ms: round(median(runs.map((r) => r.ms)), 0) };
  return { ms: round(median(runs.map((r) => r.ms)), 0), peakRssMB: round(median(runs.map((r) => r.peakRssMB)), 0), outputBytes: runs[0].outputBytes };
}

async function main(): Promise<void> {
  if (!fs.existsSync(CURRENT_CLI)) throw new Error(`${CURRENT_CLI} is missing: run this through scripts/bench.mjs, which bundles the CLI beside it`);
  fs.mkdirSync(CACHE, { recursive: true });
  const facts = await tape();
  const builds = { baseline: baselineCli(), current: CURRENT_CLI };
  const hook = rssHook();
  const measures: Measure[] = ['view', 'info', 'search', 'searchAll', 'append'];
  const runs = { baseline: new Map<Measure, Run[]>(), current: new Map<Measure, Run[]>() };
  // What a process that does nothing costs on this machine now: the floor under every figure.
  const nodeStart: Run[] = [];
  const loadBefore = os.loadavg()[0];
  for (let r = 0; r < ROUNDS; r++) {
    nodeStart.push(runCli(hook, '-e', ['0']));
    // Alternating which build goes first, so drift in the machine's speed and the page cache hit both alike.
    const order = r % 2 ? (['current', 'baseline'] as const) : (['baseline', 'current'] as const);
    for (const m of measures)
      for (const b of order) {
        const run = measure(hook, builds[b], facts.file, m);
        runs[b].set(m, [...(runs[b].get(m) ?? []), run]);
      }
  }
  const of = (b: 'baseline' | 'current'): Record<Measure, Summary> =>
    Object.fromEntries(measures.map((m) => [m, summary(runs[b].get(m) ?? [])])) as Record<Measure, Summary>;
  const baseline = of('baseline');
  const current = of('current');
  const ratio = (a?: number, b?: number): number | null => (a !== undefined && b !== undefined && b > 0 ? round(a / b, 2) : null);
  const ratios = Object.fromEntries(
    measures.map((m) => [
      m,
      {
        ms: current[m].error || baseline[m].error ? null : ratio(current[m].ms, baseline[m].ms),
        peakRss: current[m].error || baseline[m].error ? null : ratio(current[m].peakRssMB, baseline[m].peakRssMB),
      },
    ]),
  );
  const ok = (s: Summary, ms: number, rssMB = Infinity): boolean => s.error === undefined && (s.ms ?? Infinity) <= ms && (s.peakRssMB ?? Infinity) <= rssMB;
  console.log(
    JSON.stringify(
      {
        tape: { askedMB: MB, sessions: SESSIONS, ...facts, file: undefined, cachedAt: facts.file },
        rounds: ROUNDS,
        word: WORD,
        machine: {
          nodeStartMs: round(median(nodeStart.map((r) => r.ms)), 0),
          nodeStartPeakRssMB: round(median(nodeStart.map((r) => r.peakRssMB)), 0),
          loadAverage: [round(loadBefore, 1), round(os.loadavg()[0], 1)],
        },
        note: 'each figure the median of fresh CLI processes (node start-up included), ms wall time and peak RSS in MB; view: --session of the middle session --json; append: one entry to a copy of the tape (writable open, append, close); ratios current/baseline (null where either failed)',
        baseline: { revision: BASELINE, ...baseline },
        current: { revision: execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(), ...current },
        ratios,
        targets: targets({
          [`view of one session <= 1 s and <= 300 MB resident (${facts.snapshotMB} MB tape)`]: ok(current.view, 1_000, 300),
          [`search-all <= 1 s (${facts.snapshotMB} MB tape)`]: ok(current.searchAll, 1_000),
        }),
      },
      null,
      2,
    ),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
