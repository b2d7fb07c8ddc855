import * as fs from 'fs';
import { ingestFile, type IngestReport } from '../../ingest/ingest';
import { FORMAT_NAMES, countSkip, type FormatName } from '../../ingest/format';
import { transcriptFilesUnder } from '../../ingest/transcriptFiles';
import { TapeFileError } from '../../store/errors';
import { TapeStore } from '../../store/tapeStore';
import { parseArgs, str, UsageError } from '../args';
import { json, type Io } from '../output';
import { requireSqliteTape } from './session';

/**
 * `ingest <file-or-dir>... <dst.tape.sqlite> [--from F] [--json]`: other agents' transcripts onto
 * a tape (created when missing). A file named on the command line must be a transcript (of the
 * `--from` format when given); a file found in a directory that is not one is passed over and
 * listed, since agents keep other JSONL files (histories, logs) beside their transcripts.
 */
export async function ingestCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['from'], switches: ['json'], positional: ['file-or-dir', 'dst.tape.sqlite'], rest: true });
  const from = str(p, 'from');
  if (from !== undefined && !FORMAT_NAMES.includes(from as FormatName)) throw new UsageError(`--from must be one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(from)}`);
  const dst = p.positional[p.positional.length - 1];
  requireSqliteTape('ingest', dst);
  const sources = p.positional.slice(0, -1).map((src) => {
    if (!fs.existsSync(src)) throw new TapeFileError(src, 'does not exist');
    const found = fs.statSync(src).isDirectory();
    return { files: found ? transcriptFilesUnder(src) : [src], found };
  });
  const store = await TapeStore.open(dst);
  const reports: IngestReport[] = [];
  const passedOver: string[] = [];
  try {
    for (const { files, found } of sources) {
      for (const file of files) {
        try {
          reports.push(await ingestFile(store, file, from as FormatName | undefined));
        } catch (e) {
          if (!(found && e instanceof TapeFileError)) throw e;
          passedOver.push(file);
        }
      }
    }
  } finally {
    await store.close();
  }
  const skipped: Record<string, number> = {};
  for (const r of reports) for (const [type, n] of Object.entries(r.skipped)) countSkip(skipped, type, n);
  const total = {
    files: reports.length,
    sessions: reports.reduce((n, r) => n + r.sessions.length, 0),
    appended: reports.reduce((n, r) => n + r.appended, 0),
    skipped,
    tornLastLine: reports.filter((r) => r.tornLastLine).map((r) => r.file),
    notTranscripts: passedOver,
  };
  if (p.flags.has('json')) return json(io, { ...total, reports }), 0;
  io.out(`${total.files} transcripts, ${total.sessions} sessions, ${total.appended} entries appended to ${dst}\n`);
  const types = Object.entries(skipped).sort(([a], [b]) => (a < b ? -1 : 1));
  if (types.length) io.out(`lines skipped by type: ${types.map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
  for (const f of total.tornLastLine) io.out(`torn last line, left for the next run: ${f}\n`);
  for (const f of passedOver) io.out(`not a transcript, passed over: ${f}\n`);
  return 0;
}
