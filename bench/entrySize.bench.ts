// Peak memory of an entry far over the size limit (MAX_ENTRY_JSON_BYTES): a fresh process each
// (1) ingests a Claude Code transcript with one 300 MB line (a pasted log), which is stored cut, and
// (2) appends a 300 MB message of its own, which is refused. Before the limit the append took
// 3.6 GB and failed leaving its journal record; the target is well under 2.5 GB.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ingestFile } from '../src/ingest/ingest';
import { TapeStore } from '../src/store/tapeStore';
import { round, targets, tempDir } from './common';

const HUGE_BYTES = 300 * 1000 * 1000;
const MB = 1 << 20;
const SESSION = '5b0c1d2e-0000-4000-8000-0000000000aa';

const userLine = (uuid: string, i: number, content: string): string =>
  JSON.stringify({
    type: 'user',
    cwd: '/w',
    uuid,
    parentUuid: null,
    sessionId: SESSION,
    timestamp: new Date(Date.UTC(2026, 0, 2, 3, 4, i)).toISOString(),
    isSidechain: false,
    message: { role: 'user', content },
  });

/** The transcript, written in pieces: the parent never holds the 300 MB line. */
function writeTranscript(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `${userLine('u1', 1, 'before')}\n`);
    const [head, tail] = userLine('u2', 2, '\u0000').split('\\u0000');
    fs.writeSync(fd, head);
    const chunk = 'a log line that someone pasted whole\\n'.repeat(1 << 15);
    for (let n = 0; n < HUGE_BYTES; n += chunk.length) fs.writeSync(fd, chunk);
    fs.writeSync(fd, `${tail}\n${userLine('u3', 3, 'after')}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

const peakRssMB = (): number => round(process.resourceUsage().maxRSS / 1024, 1);

async function child(mode: string, dir: string): Promise<void> {
  const store = await TapeStore.open(path.join(dir, `${mode}.tape.sqlite`));
  const t0 = performance.now();
  let outcome: string;
  if (mode === 'ingest') {
    const report = await ingestFile(store, path.join(dir, `${SESSION}.jsonl`));
    const contents = store.entries(report.sessions[0], { kind: 'message' }).map((e) => String(e.payload.content).length);
    outcome = `appended ${report.appended}; message lengths ${contents.join(', ')}`;
  } else {
    const content = 'x'.repeat(HUGE_BYTES);
    const message = { kind: 'message' as const, name: 'message/user', payload: { messageId: 'm', role: 'user', status: 'sent', orderSeq: 1, content } };
    outcome = await store.append('s', message).then(
      () => 'appended',
      (e: Error) => `refused: ${e.message}`,
    );
  }
  const ms = performance.now() - t0;
  await store.close();
  process.stdout.write(JSON.stringify({ outcome, ms: round(ms, 0), peakRssMB: peakRssMB() }));
}

async function main(): Promise<void> {
  const dir = tempDir();
  try {
    writeTranscript(path.join(dir, `${SESSION}.jsonl`));
    const run = (mode: string): { outcome: string; ms: number; peakRssMB: number } => {
      const res = spawnSync(process.execPath, [__filename, '--child', mode, dir], { encoding: 'utf8' });
      if (res.status !== 0) throw new Error(res.stderr);
      return JSON.parse(res.stdout) as { outcome: string; ms: number; peakRssMB: number };
    };
    const ingest = run('ingest');
    const append = run('append');
    const lineMB = HUGE_BYTES / MB;
    console.log(
      JSON.stringify({
        lineMB: round(lineMB, 1),
        ingest,
        append,
        ingestPeakPerLineMB: round(ingest.peakRssMB / lineMB, 2),
        appendPeakPerLineMB: round(append.peakRssMB / lineMB, 2),
        targets: targets({
          'ingest of a 300 MB line peaks under 2.5 GB (3.6 GB and a failed append before the limit)': ingest.peakRssMB < 2500,
          'a 300 MB append is refused and peaks under 2.5 GB': append.peakRssMB < 2500 && append.outcome.startsWith('refused'),
        }),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv[2] === '--child' ? child(process.argv[3], process.argv[4]) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
