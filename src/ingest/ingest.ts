import { TapeFileError } from '../store/errors';
import type { TapeStore } from '../store/tapeStore';
import { detectFormat, FORMATS } from './detect';
import { countSkip, type FormatName } from './format';
import { readTranscript } from './transcriptLines';

export interface IngestReport {
  file: string;
  /** Null for a file without a complete record yet: there is nothing to tell its format by. */
  format: FormatName | null;
  /** The tape sessions the file maps to (a Claude Code session's subagents are sessions too). */
  sessions: string[];
  /** Entries written by this run; those already on the tape (same provenance key) are not counted. */
  appended: number;
  /** Source lines, or parts of them, that became no entry, by record type. */
  skipped: Record<string, number>;
  /** The file (or a companion) ends in a line still being written; the next run reads it. */
  tornLastLine: boolean;
}

/**
 * Ingests one transcript (with its companions, e.g. subagent files) into `store`. The whole file
 * is mapped every run and each session goes in as one `appendMany` (one transaction): the store's
 * provenance-key dedup drops what an earlier run already wrote. `from` names the format the file
 * must be; without it the first records decide. A file of another format is a TapeFileError.
 */
export async function ingestFile(store: TapeStore, file: string, from?: FormatName): Promise<IngestReport> {
  const main = readTranscript(file);
  const skipped: Record<string, number> = {};
  const report = (format: FormatName | null): IngestReport => ({ file, format, sessions: [], appended: 0, skipped, tornLastLine: main.tornLastLine });
  if (main.invalidLines.length) countSkip(skipped, 'invalid-json', main.invalidLines.length);
  if (main.lines.length === 0) return report(from ?? null);
  const format = detectFormat(main.lines);
  if (format === null) throw new TapeFileError(file, `is not a ${from ?? 'Claude Code or Codex'} transcript`);
  if (from !== undefined && format !== FORMATS[from]) throw new TapeFileError(file, `is a ${format.name} transcript, not ${from}`);
  const out = report(format.name);
  const companions = format.companions(file).map((f) => {
    const t = readTranscript(f);
    if (t.invalidLines.length) countSkip(skipped, 'invalid-json', t.invalidLines.length);
    out.tornLastLine ||= t.tornLastLine;
    return { file: f, lines: t.lines };
  });
  const mapped = format.map({ file, lines: main.lines }, companions);
  for (const [type, n] of Object.entries(mapped.skipped)) countSkip(skipped, type, n);
  for (const { sessionId, entries } of mapped.sessions) {
    out.sessions.push(sessionId);
    const results = await store.appendMany(sessionId, entries);
    out.appended += results.filter((r) => !r.deduplicated).length;
  }
  return out;
}
