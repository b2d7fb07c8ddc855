// Memory of a read-only `.tape.jsonl` open: a fresh process opens a ~50 MB file through
// openTapeFile and reports its resident set and heap before, at the peak and after (gc'd).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { jsonlLine } from '../src/store/jsonl';
import { openTapeFile } from '../src/store/tapeFile';
import { proseOf, round, sessionRows, targets, tempDir } from './common';

const ENTRIES = 60_000; // ~850 bytes of JSON each: ~50 MB
const MB = 1 << 20;

/** Child mode: open the file read-only in this fresh process; memory in MiB. */
async function child(file: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const store = await openTapeFile(file, { readOnly: true });
  const openMs = performance.now() - t0;
  gc();
  const after = process.memoryUsage();
  const entries = store.headEntryId('s');
  const of = (m: NodeJS.MemoryUsage): Record<string, number> => ({
    rss: round(m.rss / MB, 1),
    heapUsed: round(m.heapUsed / MB, 1),
    external: round(m.external / MB, 1),
  });
  // maxRSS is in KiB: the peak while the file was read, parsed and loaded.
  process.stdout.write(
    JSON.stringify({ entries, openMs: round(openMs, 1), before: of(before), after: of(after), peakRssMB: round(process.resourceUsage().maxRSS / 1024, 1) }),
  );
  await store.close();
}

async function main(): Promise<void> {
  const dir = tempDir();
  const file = path.join(dir, 'big.tape.jsonl');
  try {
    const lines = sessionRows('s', ENTRIES, 500, proseOf).map(([sessionId, entryId, kind, name, provenanceKey, createdAt, , , , , , payload, meta]) =>
      jsonlLine({ sessionId, entryId, kind, name, provenanceKey, createdAt, payload, meta }),
    );
    fs.writeFileSync(file, lines.join(''));
    const fileMB = fs.statSync(file).size / MB;
    const res = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', file], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(res.stderr);
    const r = JSON.parse(res.stdout) as { entries: number; openMs: number; before: { rss: number }; after: { rss: number }; peakRssMB: number };
    const peakOverFile = (r.peakRssMB - r.before.rss) / fileMB;
    console.log(
      JSON.stringify({
        fileMB: round(fileMB, 1),
        ...r,
        peakRssGrowthPerFileMB: round(peakOverFile, 2),
        retainedRssGrowthPerFileMB: round((r.after.rss - r.before.rss) / fileMB, 2),
        targets: targets({ 'peak RSS growth <= 6x the file (11.7x when the text was split and parsed whole)': peakOverFile <= 6 }),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv[2] === '--child' ? child(process.argv[3]) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
