import * as fs from 'fs';
import { ingestFile, type IngestReport } from '../../ingest/ingest';
import { AGENT_LABELS, FORMAT_NAMES } from '../../ingest/agents';
import { countSkip, type FormatName } from '../../ingest/format';
import { EXTENSION_IDS } from '../../ingest/cline/taskFolder';
import { sourceFormatOf } from '../../ingest/detect';
import { lookedFor, noSessionIn } from '../../ingest/lookedFor';
import { sourcesIn, type FolderSources } from '../../ingest/sourcesUnder';
import { TapeFileError } from '../../store/errors';
import { journalPathOf } from '../../store/journal';
import { TapeStore } from '../../store/tapeStore';
import { followTranscripts } from '../../ingest/follow';
import { parseArgs, str, UsageError } from '../args';
import { EXIT_INTERRUPTED, withInterrupt } from '../modelFlags';
import { type Io, json, warnNearlyFull } from '../output';
import { requireSqliteTape } from './session';

/** A folder given on the command line, with what its walk found and what came of it. */
interface Folder {
  dir: string;
  walk: FolderSources;
  /** Sources ingested whose format was told, or that a format claimed and could not read. */
  found: number;
}

/**
 * `ingest <source-or-dir>... <dst.tape.sqlite> [--from F] [--json]`: other agents' sessions onto
 * a tape (created when missing). A source named on the command line must be one (of the `--from`
 * format when given). A folder is walked for sessions wherever they are in it (sourcesUnder.ts):
 * a file there that is no agent's (of no `--from` agent's) is passed over and listed, since agents
 * keep other JSONL files (histories, logs) beside their transcripts; a source a format claims
 * there that cannot be read (a damaged file) is reported by name while the others are ingested
 * (exit 1); a folder holding none, or a named file read without a session, says what was looked
 * for (exit 2 when no session was found at all, else 1). With `--follow` it then keeps the tape
 * open and ingests again whatever the agents write, until Ctrl+C.
 */
export async function ingestCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['from'], switches: ['json', 'follow'], positional: ['file-or-dir', 'dst.tape.sqlite'], rest: true });
  const fromArg = str(p, 'from');
  if (fromArg !== undefined && !FORMAT_NAMES.includes(fromArg as FormatName))
    throw new UsageError(`--from must be one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(fromArg)}`);
  const from = fromArg as FormatName | undefined;
  const dst = p.positional[p.positional.length - 1];
  requireSqliteTape('ingest', dst);
  const sources = p.positional.slice(0, -1).map((src): string | Folder => {
    if (!fs.existsSync(src)) throw new TapeFileError(src, 'does not exist');
    return fs.statSync(src).isDirectory() ? { dir: src, walk: sourcesIn(src), found: 0 } : src;
  });
  // A tape this run created is removed again when it holds nothing: a run that finds nothing to
  // ingest leaves no file behind.
  const created = !fs.existsSync(dst) && !fs.existsSync(journalPathOf(dst));
  const store = await TapeStore.open(dst, { onNearlyFull: warnNearlyFull(io) });
  const out: Outcome = { reports: [], named: [], passedOver: [], failed: [], notFound: [] };
  try {
    for (const src of sources) {
      if (typeof src === 'string') {
        const report = await ingestFile(store, src, from ?? sourceFormatOf(src)?.name);
        out.reports.push(report);
        out.named.push(report);
      } else await ingestFolder(store, src, from, out);
    }
    if (p.flags.has('follow')) {
      printReport(io, dst, out, from, p.flags.has('json'));
      io.err('following; Ctrl+C stops\n');
      await withInterrupt((signal) =>
        followTranscripts(
          store,
          p.positional.slice(0, -1),
          from,
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
    const empty = store.sessions().length === 0;
    await store.close();
    if (created && empty) for (const file of [dst, journalPathOf(dst)]) fs.rmSync(file, { force: true });
  }
  return printReport(io, dst, out, from, p.flags.has('json'));
}

interface Outcome {
  reports: IngestReport[];
  /** The reports of files named on the command line (a folder's are in `reports` too). */
  named: IngestReport[];
  passedOver: string[];
  failed: { file: string; reason: string }[];
  /** The folders that held no session, with what was looked for in them. */
  notFound: { folder: string; files: number; left: string[] }[];
}

/** A copied task folder does not say whose it is (Cline, Roo Code or Kilo Code): `--from` does. */
const isTaskAgent = (format: FormatName): boolean => Object.hasOwn(EXTENSION_IDS, format);

/** Whether a source the walk found goes in as `from`: of no told format, of that one, or a task folder of the family. */
const takenAs = (format: FormatName | null, from: FormatName): boolean => format === null || format === from || (isTaskAgent(format) && isTaskAgent(from));

async function ingestFolder(store: TapeStore, folder: Folder, from: FormatName | undefined, out: Outcome): Promise<void> {
  for (const { source, format } of folder.walk.sources) {
    if (from !== undefined && !takenAs(format, from)) {
      out.passedOver.push(source);
      continue;
    }
    try {
      const report = await ingestFile(store, source, from ?? format ?? undefined);
      out.reports.push(report);
      if (report.format !== null) folder.found++;
    } catch (e) {
      if (!(e instanceof TapeFileError)) throw e;
      // A source a format claims by its path or first bytes is that agent's: failing, it is damaged, not foreign.
      if (format === null) out.passedOver.push(source);
      else {
        out.failed.push({ file: source, reason: e.message });
        folder.found++;
      }
    }
  }
  if (folder.found === 0) out.notFound.push({ folder: folder.dir, files: folder.walk.files, left: folder.walk.left });
}

function printReport(io: Io, dst: string, out: Outcome, from: FormatName | undefined, asJson: boolean): number {
  const { reports, named, passedOver, failed, notFound } = out;
  // A file named on the command line that held no session. Not each of a folder's: agents leave
  // files with no conversation in their folders (Claude Code's summary-only ones), and a folder with
  // none at all is told below.
  const sessionless = named.flatMap((r) => {
    const why = noSessionIn(r);
    return why === undefined ? [] : [{ file: r.file, why }];
  });
  const nothingFound = reports.every((r) => r.sessions.length === 0) && !reports.some((r) => r.tornLastLine);
  // Nothing at all to ingest is a usage error (exit 2); else the others are on the tape, and exit 1
  // still tells a script that a source could not be read, or a folder or a named file held none.
  const missing = notFound.length > 0 || sessionless.length > 0;
  const code = failed.length === 0 && missing && nothingFound ? 2 : failed.length > 0 || missing ? 1 : 0;
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
    notFound: notFound.map((f) => ({ ...f, lookedFor: lookedFor(from) })),
    noSession: sessionless,
  };
  for (const f of notFound) {
    const walked = [`${f.files} files looked at`, ...f.left].join('; ');
    io.err(`no ${from === undefined ? 'agent' : AGENT_LABELS[from]} sessions found under ${f.folder} (${walked}). Looked for:\n`);
    for (const line of lookedFor(from)) io.err(`  ${line}\n`);
  }
  for (const s of sessionless) io.err(`${s.why}\n`);
  if (asJson) return (json(io, { ...total, reports }), code);
  io.out(`${total.files} transcripts, ${total.sessions} sessions, ${total.appended} entries appended to ${dst}\n`);
  const types = Object.entries(skipped).sort(([a], [b]) => (a < b ? -1 : 1));
  if (types.length) io.out(`lines skipped by type: ${types.map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
  for (const f of total.tornLastLine) io.out(`torn last line, left for the next run: ${f}\n`);
  const foreign = from === undefined ? 'not a transcript' : `not a ${AGENT_LABELS[from]} session`;
  for (const f of passedOver) io.out(`${foreign}, passed over: ${f}\n`);
  for (const f of failed) io.err(`could not be read, the others were ingested: ${f.reason}\n`);
  return code;
}

function printFollowed(io: Io, r: IngestReport, asJson: boolean): void {
  if (asJson) io.data(`${JSON.stringify({ type: 'followed', file: r.file, sessions: r.sessions, appended: r.appended, tornLastLine: r.tornLastLine })}\n`);
  else io.out(`${r.file}: ${r.appended} entries appended${r.tornLastLine ? ' (its last line is still being written)' : ''}\n`);
}
