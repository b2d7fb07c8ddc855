import * as fs from 'fs';
import { TapeFileError } from '../store/errors';
import { openRegularSync, readUpToSync } from '../store/safeRead';
import { MAX_ENTRY_JSON_BYTES } from '../tape/entrySize';
import { jsonTextTooDeep } from '../tape/jsonDepth';
import { cutOversizedLine } from './oversizedLine';
import { COMPRESSED } from './transcriptFiles';
import { readZstdFileSync } from './zstdFile';

/** One parsed line of a JSONL transcript; `lineNo` counts from 1 and is stable while the file only grows. */
export interface SourceLine {
  lineNo: number;
  record: unknown;
}

/** A place in a transcript: a byte offset and the number of the line it is in. */
export interface TranscriptPosition {
  offset: number;
  lineNo: number;
}

export const TRANSCRIPT_START: TranscriptPosition = { offset: 0, lineNo: 1 };

export interface TranscriptLines {
  lines: SourceLine[];
  /**
   * Line numbers of lines that are not JSON (not the last one), nest too deep, or are too large for
   * an entry even with their long strings cut (cutOversizedLine): counted, never fatal.
   */
  invalidLines: number[];
  /**
   * The last line is not a whole record yet: the other agent is still writing it. It is left out
   * and read whole by the next run.
   */
  tornLastLine: boolean;
  /** Where the next read goes on: after the last line taken, so at the start of a torn one. */
  next: TranscriptPosition;
}

const NEWLINE = 0x0a;
const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A line's value; undefined when it is not JSON. Too deep a line is refused before JSON.parse sees it. */
function parseLine(line: string): { value: unknown } | 'invalid' | 'too-deep' {
  if (jsonTextTooDeep(line) !== null) return 'too-deep';
  try {
    return { value: JSON.parse(line) };
  } catch {
    return 'invalid';
  }
}

/**
 * Splits a transcript's bytes (those from `at` on) into parsed lines, in one pass; blank lines are
 * not records and are passed over. A last line without its newline counts when it is a whole JSON
 * object (many files simply end without one, and a record cut short is never one); otherwise it is
 * torn, as is a last line that is not JSON yet (only blank lines after it).
 */
export function parseTranscript(text: Buffer | string, at: TranscriptPosition = TRANSCRIPT_START): TranscriptLines {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  const lines: SourceLine[] = [];
  const invalidLines: number[] = [];
  // The last non-blank line so far that is not a record: torn if nothing but blank lines follow it.
  let pending: TranscriptPosition | null = null;
  let next = at;
  let lineNo = at.lineNo;
  for (let start = 0; start < buf.length; lineNo++) {
    const nl = buf.indexOf(NEWLINE, start);
    const final = nl < 0;
    const end = final ? buf.length : nl;
    // A line too large for an entry is not decoded whole: its longest strings are cut first.
    const oversized = end - start > MAX_ENTRY_JSON_BYTES ? cutOversizedLine(buf.subarray(start, end)) : undefined;
    const line = oversized === undefined ? buf.toString('utf8', start, end) : (oversized?.toString('utf8') ?? '');
    if (line.trim() !== '' || oversized === null) {
      if (pending !== null) invalidLines.push(pending.lineNo);
      pending = null;
      const parsed = oversized === null ? 'too-large' : parseLine(line);
      // A line nested too deep, or too large to cut, stays so however it ends: never worth waiting
      // for, unless it has no newline yet (a huge record being written is not cut yet either).
      if (parsed === 'too-deep' || (parsed === 'too-large' && !final)) invalidLines.push(lineNo);
      else if (parsed === 'invalid' || parsed === 'too-large' || (final && !isObject(parsed.value))) pending = { offset: at.offset + start, lineNo };
      else lines.push({ lineNo, record: parsed.value });
      if (final && pending === null) next = { offset: at.offset + end, lineNo };
    }
    if (final) break;
    start = nl + 1;
    if (pending === null) next = { offset: at.offset + start, lineNo: lineNo + 1 };
  }
  return { lines, invalidLines, tornLastLine: pending !== null, next: pending ?? next };
}

/**
 * The most of a transcript read in one go: the whole file the first time, what it gained since
 * when it is followed. Real transcripts stay far below (a long Claude Code session is tens of MB).
 */
export const TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024;

/** Where a followed file was read to, and which file that was (device and inode). */
export interface TranscriptCursor extends TranscriptPosition {
  dev: number;
  ino: number;
}

export interface TranscriptRead extends TranscriptLines {
  cursor: TranscriptCursor;
  /** A cursor was given but the file shrank or was replaced: it was read from its start. */
  restarted: boolean;
}

/**
 * A transcript's lines after `cursor` (all of them without one), read through safeRead: a FIFO, a
 * device or a directory is refused with the reason, and so is more than TRANSCRIPT_MAX_BYTES to read.
 */
export function readTranscript(file: string, cursor?: TranscriptCursor): TranscriptRead {
  if (file.endsWith(COMPRESSED)) return readCompressedTranscript(file, cursor);
  const { fd, stat } = openRegularSync(file);
  try {
    const same = cursor !== undefined && cursor.dev === stat.dev && cursor.ino === stat.ino && cursor.offset <= stat.size;
    const at = same ? cursor : TRANSCRIPT_START;
    if (stat.size - at.offset > TRANSCRIPT_MAX_BYTES) {
      throw new TapeFileError(
        file,
        `has ${Math.round((stat.size - at.offset) / (1 << 20))} MiB to read, over the ${TRANSCRIPT_MAX_BYTES / (1 << 20)} MiB limit for a transcript; refusing to read it`,
      );
    }
    const parsed = parseTranscript(readUpToSync(fd, stat.size, TRANSCRIPT_MAX_BYTES, at.offset), at);
    return { ...parsed, cursor: { ...parsed.next, dev: stat.dev, ino: stat.ino }, restarted: cursor !== undefined && !same };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A compressed transcript (Codex's `.jsonl.zst`: a rollout idle for a week) is read whole, its
 * decompressed size bounded as a plain read is: it no longer grows, so once read (the same file
 * under the cursor) it has nothing new.
 */
function readCompressedTranscript(file: string, cursor?: TranscriptCursor): TranscriptRead {
  // Opened as every transcript is (a regular file, or a TapeFileError), for its identity.
  const { fd, stat } = openRegularSync(file);
  fs.closeSync(fd);
  if (cursor !== undefined && cursor.dev === stat.dev && cursor.ino === stat.ino)
    return { lines: [], invalidLines: [], tornLastLine: false, next: cursor, cursor, restarted: false };
  const parsed = parseTranscript(readZstdFileSync(file, TRANSCRIPT_MAX_BYTES, 'a transcript'));
  return { ...parsed, cursor: { ...parsed.next, dev: stat.dev, ino: stat.ino }, restarted: cursor !== undefined };
}
