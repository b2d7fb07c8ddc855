import * as fs from 'fs';
import { TapeFileError } from './errors';
import { refuseExisting, writeFileDurably } from './fsutil';
import { journalPathOf } from './journal';
import { JsonlChecker, jsonlLine } from './jsonl';
import { jsonlBatches } from './jsonlFile';
import type { NewEntry } from '../tape/entry';
import type { RowTuple } from './rowTuple';
import { TapeStore, type OpenOptions, type RawEntry } from './tapeStore';

export const SQLITE_SUFFIX = '.tape.sqlite';
export const JSONL_SUFFIX = '.tape.jsonl';

export type TapeFormat = 'sqlite' | 'jsonl';

export function formatOf(file: string): TapeFormat {
  if (file.endsWith(SQLITE_SUFFIX)) return 'sqlite';
  if (file.endsWith(JSONL_SUFFIX)) return 'jsonl';
  throw new TapeFileError(file, `is not a tape file name (expected *${SQLITE_SUFFIX} or *${JSONL_SUFFIX})`);
}

export interface TapeFileOptions extends OpenOptions {
  /** A `.tape.jsonl` larger than this is refused unread (TapeFileTooLargeError). Default JSONL_MAX_BYTES. */
  jsonlMaxBytes?: number;
}

/** Opens either kind of tape file; a `.tape.jsonl` is loaded into memory and is always read-only. */
export async function openTapeFile(file: string, options: TapeFileOptions = {}): Promise<TapeStore> {
  if (formatOf(file) === 'sqlite') return TapeStore.open(file, options);
  if (!options.readOnly) throw new TapeFileError(file, 'is a JSONL tape, which is read-only; import it into a .tape.sqlite to append');
  return TapeStore.inMemory(jsonlBatches(file, options.jsonlMaxBytes), { readOnly: true });
}

/** `.tape.jsonl` -> new `.tape.sqlite`. Validates every line first; never overwrites `dst`. */
export async function importJsonl(src: string, dst: string): Promise<{ entries: number }> {
  if (formatOf(src) !== 'jsonl') throw new TapeFileError(src, `import reads *${JSONL_SUFFIX} files`);
  if (formatOf(dst) !== 'sqlite') throw new TapeFileError(dst, `import writes *${SQLITE_SUFFIX} files`);
  refuseExisting(dst);
  // A journal left by an earlier tape of that name would be refused (or worse) on every open.
  refuseExisting(journalPathOf(dst));
  const store = await TapeStore.inMemory(jsonlBatches(src));
  try {
    await writeFileDurably(dst, [store.snapshotBytes()], true);
    return { entries: store.sessions().reduce((n, s) => n + s.entryCount, 0) };
  } finally {
    await store.close();
  }
}

/**
 * Payload and meta characters an export reads and writes at a time: what it holds of a tape of
 * any size (one string of a whole tape's text passed V8's limit at ~860 MB of tape). Small enough
 * that a page's strings die young in V8's heap: on a 627 MB export, 4 MiB pages took about twice
 * as long (35 s against 16 s) and added twice the memory (bench/export).
 */
export const EXPORT_PAGE_CHARS = 256 << 10;

export interface ExportOptions {
  /** See EXPORT_PAGE_CHARS (tests make it small). */
  pageChars?: number;
}

/** A tape (either format) -> new `.tape.jsonl`, in append order, streamed; never overwrites `dst`. */
export async function exportJsonl(src: string, dst: string, options: ExportOptions = {}): Promise<{ entries: number }> {
  if (formatOf(dst) !== 'jsonl') throw new TapeFileError(dst, `export writes *${JSONL_SUFFIX} files`);
  refuseExisting(dst);
  const store = await openTapeFile(src, { readOnly: true });
  try {
    return await writeJsonl(store, null, dst, true, options);
  } finally {
    await store.close();
  }
}

/**
 * One session of an open tape -> a tape file of its own, in the format `dst` names, with the
 * entries exactly as stored. `replace` is for a destination the user already agreed to overwrite
 * (a save dialog); the write is still atomic. A `.tape.sqlite` destination with a journal beside it
 * is refused either way: that journal would be replayed onto the new file on its next open.
 */
export async function exportSession(
  store: TapeStore,
  sessionId: string,
  dst: string,
  options: ExportOptions & { replace?: boolean } = {},
): Promise<{ entries: number }> {
  const format = formatOf(dst);
  if (store.headEntryId(sessionId) === 0) throw new TapeFileError(dst, `cannot be written: the tape has no session ${JSON.stringify(sessionId)}`);
  if (format === 'jsonl') return writeJsonl(store, sessionId, dst, !options.replace, options);
  if (fs.existsSync(journalPathOf(dst))) throw new TapeFileError(dst, `has a journal (${journalPathOf(dst)}) beside it; choose another name or remove both`);
  const count = { entries: 0 };
  const copy = await TapeStore.inMemory(checkedRows(store.rawEntryPages(sessionId, options.pageChars ?? EXPORT_PAGE_CHARS), dst, count));
  try {
    await writeFileDurably(dst, [copy.snapshotBytes()], !options.replace);
  } finally {
    await copy.close();
  }
  return count;
}

/**
 * The rows of an open tape (`sessionId` null) or of one of its sessions to a `.tape.jsonl`, a page
 * at a time, durably (writeFileDurably; `exclusive`: never over an existing `dst`).
 */
export async function writeJsonl(
  store: TapeStore,
  sessionId: string | null,
  dst: string,
  exclusive: boolean,
  options: ExportOptions = {},
): Promise<{ entries: number }> {
  const count = { entries: 0 };
  await writeFileDurably(dst, jsonlChunks(store.rawEntryPages(sessionId, options.pageChars ?? EXPORT_PAGE_CHARS), count), exclusive);
  return count;
}

/** Pages of rows as `.tape.jsonl` text, one write each; counts the rows into `count`. */
function* jsonlChunks(pages: Iterable<RawEntry[]>, count: { entries: number }): Generator<Buffer> {
  for (const rows of pages) {
    count.entries += rows.length;
    yield Buffer.from(rows.map(jsonlLine).join(''));
  }
}

/** Pages of rows as the rows an import of their `.tape.jsonl` lines would make (JsonlChecker); counts them into `count`. */
async function* checkedRows(pages: Iterable<RawEntry[]>, file: string, count: { entries: number }): AsyncGenerator<RowTuple[]> {
  const checker = new JsonlChecker(file);
  for (const rows of pages) yield rows.map((r) => checker.row(jsonlLine(r).slice(0, -1), ++count.entries));
}

export interface ImportReport {
  /** Sessions added, with their entry counts. */
  imported: { sessionId: string; entries: number }[];
  /** Sessions the destination already has: left as they are. */
  skipped: string[];
}

/**
 * Adds the sessions of a tape file (either format) to an open tape, each as one transaction with
 * its entries' kinds, names, provenance keys, payloads, meta and times. A session the destination
 * already has is skipped, never merged into: two histories under one id would make neither true.
 * The source is opened read-only and never written.
 */
export async function importTapeFile(dst: TapeStore, src: string): Promise<ImportReport> {
  const source = await openTapeFile(src, { readOnly: true });
  const report: ImportReport = { imported: [], skipped: [] };
  try {
    for (const { sessionId } of source.sessions()) {
      if (dst.headEntryId(sessionId) > 0) {
        report.skipped.push(sessionId);
        continue;
      }
      const entries: NewEntry[] = source
        .entries(sessionId)
        .map((e) => ({ kind: e.kind, name: e.name, provenanceKey: e.provenanceKey, payload: e.payload, meta: e.meta, createdAt: e.createdAt }));
      await dst.appendMany(sessionId, entries, { durable: true });
      report.imported.push({ sessionId, entries: entries.length });
    }
  } finally {
    await source.close();
  }
  return report;
}
