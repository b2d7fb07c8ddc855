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
   * The last line had no newline or did not parse: the other agent is still writing it. It is left
   * out and read whole by the next run.
   */
  tornLastLine: boolean;
}

/** Splits a transcript's text into parsed lines; blank lines are not records and are passed over. */
export function parseTranscript(text: string): TranscriptLines {
  const complete = text.split('\n');
  // A file that ends with "\n" splits into a last empty part; any other last part has no newline yet.
  let tornLastLine = complete.pop() !== '';
  const lines: SourceLine[] = [];
  const invalidLines: number[] = [];
  complete.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      lines.push({ lineNo: i + 1, record: JSON.parse(line) });
    } catch {
      if (i === complete.length - 1) tornLastLine = true;
      else invalidLines.push(i + 1);
    }
  });
  return { lines, invalidLines, tornLastLine };
}

export const readTranscript = (file: string): TranscriptLines => parseTranscript(fs.readFileSync(file, 'utf8'));
