import { claudeCode } from './claudeCode';
import { codex } from './codex';
import type { FormatName, TranscriptFormat } from './format';
import type { SourceLine } from './transcriptLines';

export const FORMATS: Record<FormatName, TranscriptFormat> = { 'claude-code': claudeCode, codex };

// The first records decide; a few, since a file may open with a record of a type neither knows.
const DETECT_RECORDS = 5;

/** The format whose records a transcript starts with, or null when it is neither's. */
export function detectFormat(lines: readonly SourceLine[]): TranscriptFormat | null {
  for (const { record } of lines.slice(0, DETECT_RECORDS)) {
    const format = Object.values(FORMATS).find((f) => f.recognizes(record));
    if (format) return format;
  }
  return null;
}
