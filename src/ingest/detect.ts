import { claudeCode } from './claudeCode';
import { cline, kilo, roo } from './cline/clineFormats';
import { codex } from './codex';
import type { FormatName, TranscriptFormat } from './format';
import { gemini } from './gemini/gemini';
import { opencode } from './opencode/opencode';
import { readSourceHead } from './sourceFiles';
import type { SourceFormat } from './sourceFormat';
import type { SourceLine } from './transcriptLines';
import { vscodeChat } from './vscodeChat/vscodeChatFormat';

/** Formats read line by line from where the last run stopped (format.ts). */
const LINE_FORMATS: readonly TranscriptFormat[] = [claudeCode, codex];

/** Formats whose sources are read whole on every run (sourceFormat.ts). */
export const SOURCE_FORMATS: readonly SourceFormat[] = [vscodeChat, opencode, gemini, cline, roo, kilo];

type KnownFormat = { kind: 'lines'; format: TranscriptFormat } | { kind: 'source'; format: SourceFormat };

/** The format called `name`. */
export function formatNamed(name: FormatName): KnownFormat {
  const lines = LINE_FORMATS.find((f) => f.name === name);
  if (lines) return { kind: 'lines', format: lines };
  const source = SOURCE_FORMATS.find((f) => f.name === name);
  if (source) return { kind: 'source', format: source };
  throw new Error(`no format is called ${name}`);
}

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
