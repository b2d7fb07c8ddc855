import * as fs from 'fs';

/** One parsed line of a JSONL transcript; `lineNo` counts from 1 and is stable while the file only grows. */
export interface SourceLine {
  lineNo: number;
  record: unknown;
}

export interface TranscriptLines {
  lines: SourceLine[];
  /** Line numbers of lines that are not JSON (not the last one): counted, never fatal. */
  invalidLines: number[];
  /**
   * The last line is not a whole record yet: the other agent is still writing it. It is left out
   * and read whole by the next run.
   */
  tornLastLine: boolean;
}

/**
 * Splits a transcript's text into parsed lines; blank lines are not records and are passed over.
 * A last line without its newline counts when it is a whole JSON object (many files simply end
 * without one, and a record cut short is never one); otherwise it is torn.
 */
export function parseTranscript(text: string): TranscriptLines {
  const parts = text.split('\n');
  const lines: SourceLine[] = [];
  const invalidLines: number[] = [];
  let tornLastLine = false;
  parts.forEach((line, i) => {
    if (line.trim() === '') return;
    const last = i === parts.length - 1 || parts.slice(i + 1).every((p) => p.trim() === '');
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      if (last) tornLastLine = true;
      else invalidLines.push(i + 1);
      return;
    }
    if (i === parts.length - 1 && (typeof record !== 'object' || record === null || Array.isArray(record))) tornLastLine = true;
    else lines.push({ lineNo: i + 1, record });
  });
  return { lines, invalidLines, tornLastLine };
}

export const readTranscript = (file: string): TranscriptLines => parseTranscript(fs.readFileSync(file, 'utf8'));
