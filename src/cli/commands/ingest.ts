import * as fs from 'fs';
import { ingestFile, type IngestReport } from '../../ingest/ingest';
import { FORMAT_NAMES, countSkip, type FormatName } from '../../ingest/format';
import { sourceOfPath } from '../../ingest/detect';
import { sourcesUnder } from '../../ingest/sourcesUnder';
import { TapeFileError } from '../../store/errors';
import { TapeStore } from '../../store/tapeStore';
import { followTranscripts } from '../../ingest/follow';
import { parseArgs, str, UsageError } from '../args';
import { EXIT_INTERRUPTED, withInterrupt } from '../modelFlags';
import { json, type Io } from '../output';
import { requireSqliteTape } from './session';

/**
 * `ingest <source-or-dir>... <dst.tape.sqlite> [--from F] [--json]`: other agents' sessions onto
 * a tape (created when missing). A source named on the command line must be one (of the `--from`
 * format when given); a file found in a directory that is not one is passed over and listed, since
 * agents keep other JSONL files (histories, logs) beside their transcripts, and a source found
 * there that cannot be read (a damaged file) is reported by name while the others are ingested. With
 * `--follow` it then keeps the tape open and ingests again whatever the agents write, until Ctrl+C.
 */
export async function ingestCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['from'], switches: ['json', 'follow'], positional: ['file-or-dir', 'dst.tape.sqlite'], rest: true });
  const from = str(p, 'from');
  if (from !== undefined && !FORMAT_NAMES.includes(from as FormatName))
    throw new UsageError(`--from must be one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(from)}`);
  const dst = p.positional[p.positional.length - 1];
  requireSqliteTape('ingest', dst);
  const sources = p.positional.slice(0, -1).map((src) => {
    if (!fs.existsSync(src)) throw new TapeFileError(src, 'does not exist');
    const found = fs.statSync(src).isDirectory();
    return { files: found ? sourcesUnder(src) : [src], found };
  });
  const store = await TapeStore.open(dst);
  const reports: IngestReport[] = [];
  const passedOver: string[] = [];
  const failed: { file: string; reason: string }[] = [];
  try {
    for (const { files, found } of sources) {
      for (const file of files) {
        try {
          reports.push(await ingestFile(store, file, from as FormatName | undefined));
        } catch (e) {
          if (!(found && e instanceof TapeFileError)) throw e;
          // A file a source format claims by its path is that agent's: failing, it is damaged, not foreign.
          if (sourceOfPath(file) !== null) failed.push({ file, reason: e.message });
          else passedOver.push(file);
        }
      }
    }
    if (p.flags.has('follow')) {
      printReport(io, dst, reports, passedOver, failed, p.flags.has('json'));
      io.err('following; Ctrl+C stops\n');
      await withInterrupt((signal) =>
        followTranscripts(
          store,
          p.positional.slice(0, -1),
          from as FormatName | undefined,
          signal,
          (r) => {
            if (r.appended > 0 || r.tornLastLine) printFollowed(io, r, p.flags.has('json'));
          },
          (e) => io.err(`refused: ${e.message}\n`),
        ),
      );
      return EXIT_INTERRUPTED;
    }
  } finally {
    await store.close();
  }
  return printReport(io, dst, reports, passedOver, failed, p.flags.has('json'));
}

function printReport(
  io: Io,
  dst: string,
  reports: readonly IngestReport[],
  passedOver: readonly string[],
  failed: readonly { file: string; reason: string }[],
  asJson: boolean,
): number {
  // The others are on the tape; exit 1 still tells a script that one source could not be read.
  const code = failed.length > 0 ? 1 : 0;
  const skipped: Record<string, number> = {};
  for (const r of reports) for (const [type, n] of Object.entries(r.skipped)) countSkip(skipped, type, n);
  const total = {
    files: reports.length,
    sessions: reports.reduce((n, r) => n + r.sessions.length, 0),
    appended: reports.reduce((n, r) => n + r.appended, 0),
    skipped,
    tornLastLine: reports.filter((r) => r.tornLastLine).map((r) => r.file),
    notTranscripts: passedOver,
    failed,
  };
  if (asJson) return (json(io, { ...total, reports }), code);
  io.out(`${total.files} transcripts, ${total.sessions} sessions, ${total.appended} entries appended to ${dst}\n`);
  const types = Object.entries(skipped).sort(([a], [b]) => (a < b ? -1 : 1));
  if (types.length) io.out(`lines skipped by type: ${types.map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
  for (const f of total.tornLastLine) io.out(`torn last line, left for the next run: ${f}\n`);
  for (const f of passedOver) io.out(`not a transcript, passed over: ${f}\n`);
  for (const f of failed) io.err(`could not be read, the others were ingested: ${f.reason}\n`);
  return code;
}

function printFollowed(io: Io, r: IngestReport, asJson: boolean): void {
  if (asJson) io.data(`${JSON.stringify({ type: 'followed', file: r.file, sessions: r.sessions, appended: r.appended, tornLastLine: r.tornLastLine })}\n`);
  else io.out(`${r.file}: ${r.appended} entries appended${r.tornLastLine ? ' (its last line is still being written)' : ''}\n`);
}
