import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { journalPathOf, readJournal, type JournalRecord } from '../../../src/store/journal';
import type { NewEntry } from '../../../src/tape/entry';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-store-'));
}

export const message = (messageId: string, content: string, opts: { status?: 'pending' | 'sent' | 'error'; role?: 'user' | 'assistant'; orderSeq?: number; key?: string } = {}): NewEntry => {
  const role = opts.role ?? 'user';
  return {
    kind: 'message',
    name: `message/${role}`,
    provenanceKey: opts.key ?? null,
    payload: { messageId, role, status: opts.status ?? 'sent', orderSeq: opts.orderSeq ?? 1, content },
  };
};

/** Bytes and mtime of a file, to prove it was left untouched. */
export function fingerprint(file: string): { bytes: Buffer; mtimeMs: number } {
  return { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs };
}

/**
 * The records in a tape's journal (sequence numbers and bodies): what an append wrote there. The
 * file's size cannot tell, as the journal is preallocated in whole MiB of zeros.
 */
export function journalRecords(file: string, tapeId: string): JournalRecord[] {
  return readJournal(journalPathOf(file), tapeId).records;
}
