// `export` of a whole tape to `.tape.jsonl`: time and the memory the export adds to an open tape,
// streamed (exportJsonl, a page of payload and meta at a time) against the way it was done up to
// 505d866 (every row read, joined into one string, written at once), each in a fresh process on
// the same tape. Size by EXPORT_BENCH_MB (JSONL megabytes, default 64); the figure is
// EXPORT_BENCH_MB=640, past the ~512 MiB string V8 allows, where the old way throws. The tape is
// built once per size and kept in the OS temp folder.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeFileDurably } from '../src/store/fsutil';
import { jsonlLine } from '../src/store/jsonl';
import { writeJsonl } from '../src/store/tapeFile';
import { TapeStore } from '../src/store/tapeStore';
import { median, proseOf, round, sessionRows, targets, tempDir } from './common';

const MB = 1 << 20;
const JSONL_MB = Number(process.env.EXPORT_BENCH_MB ?? 64);
const PAYLOAD_BYTES = 2000;
const ROWS_PER_SESSION = 1000;
const ROUNDS = Number(process.env.EXPORT_BENCH_ROUNDS ?? 3);
type Way = 'streamed' | 'whole';

/** Peak resident set since the last reset, MiB (Linux; null elsewhere). */
function peakRssMB(): number | null {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.existsSync('/proc/self/status') ? fs.readFileSync('/proc/self/status', 'utf8') : '');
  return m ? round(Number(m[1]) / 1024, 1) : null;
}

/** Restarts the peak above from the present resident set, so it measures what comes next (Linux). */
const resetPeak = (): void => fs.writeFileSync('/proc/self/clear_refs', '5');

/**
 * Child mode: open the tape as `export` does, reset the peak, export it one way (streamed: what
 * exportJsonl does once the tape is open); times, and the memory the export adds to the open tape.
 */
async function child(way: Way, src: string, dst: string): Promise<void> {
  const t0 = performance.now();
  const store = await TapeStore.open(src, { readOnly: true });
  const openMs = performance.now() - t0;
  const rssAfterOpenMB = round(process.memoryUsage().rss / MB, 1);
  resetPeak();
  const t1 = performance.now();
  let error: string | null = null;
  try {
    if (way === 'streamed') await writeJsonl(store, null, dst, true);
    else await writeFileDurably(dst, [Buffer.from(store.rawEntries(null).map(jsonlLine).join(''))], true);
  } catch (e) {
    error = String(e);
  }
  const exportMs = performance.now() - t1;
  const peak = peakRssMB();
  await store.close();
  // maxRSS (KiB) is the whole command's peak, the open's included.
  const commandPeakRssMB = round(process.resourceUsage().maxRSS / 1024, 1);
  process.stdout.write(
    JSON.stringify({
      openMs,
      exportMs,
      rssAfterOpenMB,
      exportPeakRssMB: peak,
      exportRssGrowthMB: peak === null ? null : peak - rssAfterOpenMB,
      commandPeakRssMB,
      error,
    }),
  );
}

/** Sessions of agent-like rows, one in ten turns prose (the search index's work), the rest filler. */
async function* rowsOf(sessions: number): AsyncGenerator<ReturnType<typeof sessionRows>> {
  for (let s = 0; s < sessions; s++)
    yield sessionRows(`s${s}`, ROWS_PER_SESSION, PAYLOAD_BYTES, (turn, bytes) => (turn % 10 ? 'x'.repeat(bytes) : proseOf(turn, bytes)));
}

async function tapeOfSize(): Promise<string> {
  const file = path.join(os.tmpdir(), `agent-tape-bench-export-${JSONL_MB}mb-${PAYLOAD_BYTES}.tape.sqlite`);
  if (fs.existsSync(file)) return file;
  // A row's JSONL line is its text (the payload repeats it once) and ~250 bytes of keys and ids.
  const sessions = Math.ceil((JSONL_MB * MB) / ((PAYLOAD_BYTES + 250) * ROWS_PER_SESSION));
  const bulk = await TapeStore.inMemory(rowsOf(sessions));
  try {
    await writeFileDurably(file, [bulk.snapshotBytes()], true);
  } finally {
    await bulk.close();
  }
  return file;
}

async function main(): Promise<void> {
  const src = await tapeOfSize();
  const dir = tempDir();
  try {
    const runs: Record<Way, Record<string, number | string | null>[]> = { streamed: [], whole: [] };
    // Alternating, so both ways meet the same machine load.
    for (let r = 0; r < ROUNDS; r++) {
      for (const way of ['whole', 'streamed'] as const) {
        const dst = path.join(dir, `${way}-${r}.tape.jsonl`);
        const res = spawnSync(process.execPath, [__filename, '--child', way, src, dst], { encoding: 'utf8' });
        if (res.status !== 0) throw new Error(res.stderr);
        runs[way].push({ ...JSON.parse(res.stdout), jsonlMB: fs.existsSync(dst) ? fs.statSync(dst).size / MB : null });
        fs.rmSync(dst, { force: true });
      }
    }
    const summary = (xs: Record<string, number | string | null>[]): Record<string, number | string | null> => {
      const errors = xs.map((x) => x.error).filter((e) => e !== null);
      if (errors.length) return { error: errors[0], openMs: round(median(xs.map((x) => x.openMs as number)), 0) };
      const m = (k: string): number => round(median(xs.map((x) => x[k] as number)), 1);
      return {
        jsonlMB: m('jsonlMB'),
        openMs: m('openMs'),
        exportMs: m('exportMs'),
        rssAfterOpenMB: m('rssAfterOpenMB'),
        exportRssGrowthMB: m('exportRssGrowthMB'),
        commandPeakRssMB: m('commandPeakRssMB'),
      };
    };
    const streamed = summary(runs.streamed);
    const whole = summary(runs.whole);
    const ratio = (k: string): number | null =>
      typeof whole[k] === 'number' && typeof streamed[k] === 'number' ? round((streamed[k] as number) / (whole[k] as number), 2) : null;
    console.log(
      JSON.stringify({
        tapeMB: round(fs.statSync(src).size / MB, 1),
        rounds: ROUNDS,
        streamed,
        whole,
        streamedOverWhole: { exportMs: ratio('exportMs'), exportRssGrowthMB: ratio('exportRssGrowthMB'), commandPeakRssMB: ratio('commandPeakRssMB') },
        targets: targets({
          'the export adds under 100 MB of resident memory, whatever the tape size':
            typeof streamed.exportRssGrowthMB === 'number' && streamed.exportRssGrowthMB < 100,
        }),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv[2] === '--child' ? child(process.argv[3] as Way, process.argv[4], process.argv[5]) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
