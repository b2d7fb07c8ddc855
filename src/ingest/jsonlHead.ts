import * as fs from 'fs';
import { openRegularSync, readUpToSync, type RegularFd } from '../store/safeRead';
import { parseTranscript } from './transcriptLines';

/** Only the head of a transcript is read to describe it: the first prompt and the folder come early. */
const HEAD_BYTES = 256 * 1024;

export type JsonRecord = Record<string, unknown>;

export const isJsonRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON objects on the complete lines of a file's first HEAD_BYTES, and its mtime; null when it
 * cannot be read or is not a regular file (safeRead: a FIFO or a device is never opened for long).
 */
export function readJsonlHead(file: string): { lines: JsonRecord[]; modifiedAt: number } | null {
  let opened: RegularFd;
  try {
    opened = openRegularSync(file);
  } catch {
    return null;
  }
  try {
    // A line cut at HEAD_BYTES is torn, so left out; describing the file does not need it.
    const { lines } = parseTranscript(readUpToSync(opened.fd, opened.stat.size, HEAD_BYTES));
    return { lines: lines.map((l) => l.record).filter(isJsonRecord), modifiedAt: opened.stat.mtimeMs };
  } finally {
    fs.closeSync(opened.fd);
  }
}
