import type * as fs from 'fs';
import { AGENTS } from './agents';
import type { FormatName, TranscriptFormat } from './format';
import type { AgentReader } from './ingestAgent';
import { readSourceHead } from './sourceFiles';
import type { SourceFormat } from './sourceFormat';
import type { SourceLine } from './transcriptLines';

const READERS: readonly AgentReader[] = Object.values(AGENTS).map((a) => a.reader);

/** Formats read line by line from where the last run stopped (format.ts). */
const LINE_FORMATS: readonly TranscriptFormat[] = READERS.flatMap((r) => (r.kind === 'lines' ? [r.format] : []));

/** Formats whose sources are read whole on every run (sourceFormat.ts). */
export const SOURCE_FORMATS: readonly SourceFormat[] = READERS.flatMap((r) => (r.kind === 'source' ? [r.format] : []));

/** The format called `name`. */
export const formatNamed = (name: FormatName): AgentReader => AGENTS[name].reader;

/** The source format whose source a folder is by what it holds (an opencode storage folder), or null. */
export const sourceFormatOfFolder = (entries: readonly fs.Dirent[]): SourceFormat | null =>
  SOURCE_FORMATS.find((f) => f.recognizesFolder?.(entries) === true) ?? null;

// The first records decide; a few, since a file may open with a record of a type neither knows.
const DETECT_RECORDS = 5;

/** The line format whose records a transcript starts with, or null when it is none's. */
export function detectFormat(lines: readonly SourceLine[]): TranscriptFormat | null {
  for (const { record } of lines.slice(0, DETECT_RECORDS)) {
    const format = LINE_FORMATS.find((f) => f.recognizes(record));
    if (format) return format;
  }
  return null;
}

/** The source format and source a path belongs to by its name alone (SourceFormat.sourceOfPath), or null. */
export function sourceOfPath(file: string): { format: SourceFormat; source: string } | null {
  for (const format of SOURCE_FORMATS) {
    const source = format.sourceOfPath(file);
    if (source !== null) return { format, source };
  }
  return null;
}

/** The source format whose content `file` starts with (its first 64 KiB), or null. */
export function sourceFormatOfContent(file: string): SourceFormat | null {
  const head = readSourceHead(file);
  return head === null ? null : (SOURCE_FORMATS.find((f) => f.recognizes(file, head)) ?? null);
}

/** The source format a file is of: by its path (sourceOfPath), else by its first bytes; null for neither (a line transcript, perhaps). */
export const sourceFormatOf = (file: string): SourceFormat | null => sourceOfPath(file)?.format ?? sourceFormatOfContent(file);
