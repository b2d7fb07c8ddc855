import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { journalPathOf, readJournal, type JournalRecord } from '../../../src/store/journal';
import type { NewEntry } from '../../../src/tape/entry';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-store-'));
}

export const message = (
  messageId: string,
  content: string,
  opts: { status?: 'pending' | 'sent' | 'error'; role?: 'user' | 'assistant'; orderSeq?: number; key?: string } = {},
): NewEntry => {
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

/** Resolves once `done()` holds (events from a watcher, another process); fails after five seconds. */
export async function until(done: () => boolean, what: string): Promise<void> {
  for (const t0 = Date.now(); !done();) {
    if (Date.now() - t0 > 5000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * After a crash: every acknowledged entry of session `s` is there with its content (`expected`:
 * entry id -> content), and the session's entry ids are still dense.
 */
export function assertAcknowledgedKept(
  store: { getEntry(s: string, id: number): { payload: { content?: unknown } } | undefined; entries(s: string): { entryId: number }[] },
  expected: ReadonlyMap<number, string>,
  trial: number,
): void {
  for (const [id, content] of expected) {
    assert.strictEqual(store.getEntry('s', id)?.payload.content, content, `trial ${trial}: acknowledged entry ${id} is missing or different`);
  }
  const ids = store.entries('s').map((e) => e.entryId);
  assert.deepStrictEqual(
    ids,
    ids.map((_, i) => i + 1),
    'entry ids stay dense',
  );
}
