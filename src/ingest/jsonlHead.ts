import * as fs from 'fs';
import { openRegularSync, readUpToSync, type RegularFd } from '../store/safeRead';
import { COMPRESSED } from './transcriptFiles';
import { parseTranscript, TRANSCRIPT_MAX_BYTES } from './transcriptLines';
import { readZstdHeadSync } from './zstdFile';

/** Only the head of a transcript is read to describe it: the first prompt and the folder come early. */
const HEAD_BYTES = 256 * 1024;

export type JsonRecord = Record<string, unknown>;

export const isJsonRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A file's first HEAD_BYTES (of a compressed one's content, decompressed as a transcript read
 * bounds it) and its mtime; null when it cannot be read or is not a regular file (safeRead: a FIFO
 * or a device is never opened for long). What describing a session for a list reads.
 */
export function readHead(file: string): { bytes: Buffer; modifiedAt: number } | null {
  let opened: RegularFd;
  try {
    opened = openRegularSync(file);
  } catch {
    return null;
  }
  try {
    const bytes = file.endsWith(COMPRESSED)
      ? readZstdHeadSync(file, HEAD_BYTES, TRANSCRIPT_MAX_BYTES, 'a transcript')
      : readUpToSync(opened.fd, opened.stat.size, HEAD_BYTES);
    return { bytes, modifiedAt: opened.stat.mtimeMs };
  } catch {
    return null;
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** The JSON objects on the complete lines of a file's head (readHead), and its mtime; null when it cannot be read. */
export function readJsonlHead(file: string): { lines: JsonRecord[]; modifiedAt: number } | null {
  const head = readHead(file);
  if (head === null) return null;
  // A line cut at HEAD_BYTES is torn, so left out; describing the file does not need it.
  const { lines } = parseTranscript(head.bytes);
  return { lines: lines.map((l) => l.record).filter(isJsonRecord), modifiedAt: head.modifiedAt };
}
