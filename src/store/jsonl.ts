import { validateEntry, TapeValidationError } from '../tape/entry';
import { errorMessage } from '../tape/errorMessage';
import { jsonTextTooDeep } from '../tape/jsonDepth';
import { safeJsonText } from '../tape/safeJsonText';
import { TapeFileError } from './errors';
import { rowTupleOf, type RowTuple } from './rowTuple';
import type { RawEntry } from './tapeStore';

/**
 * One entry as a `.tape.jsonl` line, keys in the interchange order, payload/meta as their stored
 * text with control characters escaped (safeJsonText): the same values, and a line that cannot
 * drive the terminal that prints it or be split by an editor that reads it.
 */
export function jsonlLine(e: RawEntry): string {
  return safeJsonText(
    `{"sessionId":${JSON.stringify(e.sessionId)},"entryId":${e.entryId},"kind":${JSON.stringify(e.kind)},"name":${JSON.stringify(e.name)},"provenanceKey":${JSON.stringify(e.provenanceKey)},"payload":${withoutLineFeeds(e.payload)},"meta":${withoutLineFeeds(e.meta)},"createdAt":${e.createdAt}}\n`,
  );
}

/** Stored JSON text has a raw line feed only between tokens (it is not valid in a string), and a line must not. */
const withoutLineFeeds = (json: string): string => (json.includes('\n') ? json.replace(/\n/g, '') : json);

/**
 * Where each top-level value of a JSON object text starts and ends. JSON.parse has already
 * accepted the text, so this only has to skip strings and nesting correctly.
 */
function topLevelSpans(text: string): Map<string, [number, number]> {
  const spans = new Map<string, [number, number]>();
  let i = text.indexOf('{') + 1;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const skipString = (): void => {
    for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
    i++;
  };
  const skipValue = (): void => {
    if (text[i] === '"') return skipString();
    if (text[i] !== '{' && text[i] !== '[') {
      while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
      return;
    }
    let depth = 0;
    do {
      if (text[i] === '"') {
        skipString();
        continue;
      }
      if (text[i] === '{' || text[i] === '[') depth++;
      else if (text[i] === '}' || text[i] === ']') depth--;
      i++;
    } while (depth > 0);
  };
  for (ws(); text[i] !== '}'; ws()) {
    const keyStart = i;
    skipString();
    const key = JSON.parse(text.slice(keyStart, i)) as string;
    ws();
    i++; // ':'
    ws();
    const start = i;
    skipValue();
    spans.set(key, [start, i]);
    ws();
    if (text[i] === ',') i++;
  }
  return spans;
}

/**
 * Checks a `.tape.jsonl` line by line, refusing anything that is not a valid tape: a broken line,
 * an invalid entry, duplicate or missing entry ids, a repeated provenance key. Errors name the file
 * and line. Payload and meta keep their exact JSON text. One checker reads one file, since ids and
 * keys are checked across its lines; it keeps only each session's head and its keys.
 */
export class JsonlChecker {
  private readonly heads = new Map<string, number>();
  private readonly keys = new Set<string>();

  constructor(private readonly file: string) {}

  /** The row of line `lineNo` (counted from 1), given without its newline. */
  row(line: string, lineNo: number): RowTuple {
    const file = this.file;
    const deep = jsonTextTooDeep(line);
    if (deep) throw new TapeFileError(file, deep, lineNo);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new TapeFileError(file, `not a JSON line (${errorMessage(e)})`, lineNo);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TapeFileError(file, 'not a JSON object', lineNo);
    let entry;
    try {
      entry = validateEntry(value, 'entry');
    } catch (e) {
      if (e instanceof TapeValidationError) throw new TapeFileError(file, e.message, lineNo);
      throw e;
    }
    const expected = (this.heads.get(entry.sessionId) ?? 0) + 1;
    if (entry.entryId !== expected) {
      const what = entry.entryId < expected ? 'duplicate or out-of-order' : 'gap before';
      throw new TapeFileError(file, `${what} entry id ${entry.entryId} in session ${JSON.stringify(entry.sessionId)} (expected ${expected})`, lineNo);
    }
    this.heads.set(entry.sessionId, expected);
    if (entry.provenanceKey !== null) {
      const k = `${entry.sessionId}\u0000${entry.provenanceKey}`;
      if (this.keys.has(k))
        throw new TapeFileError(
          file,
          `provenance key ${JSON.stringify(entry.provenanceKey)} appears twice in session ${JSON.stringify(entry.sessionId)}`,
          lineNo,
        );
      this.keys.add(k);
    }
    const spans = topLevelSpans(line);
    const raw = (k: string): string => line.slice(...(spans.get(k) as [number, number]));
    return rowTupleOf(entry, raw('payload'), raw('meta'));
  }
}

/** The rows of a `.tape.jsonl` text held in memory (see JsonlChecker; a file is read with jsonlBatches). */
export function parseJsonl(text: string, file: string): RowTuple[] {
  const checker = new JsonlChecker(file);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, i) => checker.row(line, i + 1));
}
