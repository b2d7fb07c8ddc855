import { TapeFileError } from '../store/errors';
import type { TapeStore } from '../store/tapeStore';
import type { JsonObject, NewEntry } from '../tape/entry';
import { SUBAGENT_LINKED, entryHash, linkData } from '../tape/fork';
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
  out.sessions.push(...mapped.sessions.map((s) => s.sessionId));
  // Children first, so a parent's link can freeze the head each child has on the tape now.
  const targets = new Set(mapped.sessions.flatMap((s) => s.entries.flatMap((e) => linkTarget(e) ?? [])));
  const ordered = [...mapped.sessions.filter((s) => targets.has(s.sessionId)), ...mapped.sessions.filter((s) => !targets.has(s.sessionId))];
  for (const { sessionId, entries } of ordered) {
    const results = await store.appendMany(sessionId, entries.map((e) => freezeLink(store, e)));
    out.appended += results.filter((r) => !r.deduplicated).length;
  }
  return out;
}

const linkTarget = (e: NewEntry): string | null => (e.kind === 'event' && e.name === SUBAGENT_LINKED ? (linkData.safeParse(e.payload.data).data?.childSessionId ?? null) : null);

/**
 * A mapped `subagent/linked` event with the child's head frozen as the tape has it (SPEC 2.8), so
 * the parent reads the child only that far. The head is part of its provenance key: when a later
 * run finds the child grown, a new link is appended and the last one is in force.
 */
function freezeLink(store: TapeStore, e: NewEntry): NewEntry {
  const child = linkTarget(e);
  const head = child === null ? 0 : store.headEntryId(child);
  if (child === null || head === 0) return e;
  const data = {
    ...(e.payload.data as JsonObject),
    childHeadEntryId: head,
    childHeadHash: entryHash(store.requireEntry(child, head)),
    childStartedAt: store.requireEntry(child, 1).createdAt,
  };
  return { ...e, provenanceKey: `${e.provenanceKey ?? SUBAGENT_LINKED}@${head}`, payload: { ...e.payload, data } };
}
