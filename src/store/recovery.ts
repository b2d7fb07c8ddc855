import type { Database, SqlJsStatic } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';
import { TapeFileError } from './errors';
import { inodeOf } from './fsutil';
import { layoutOf, readJournal, type JournalLayout, type JournalRecord } from './journal';
import type { TailStart } from './journalTail';
import { lockHolder } from './lock';
import type { PagedFile } from './pagedFile';
import { decodeRows } from './rowTuple';
import { insertRows, RowWriter } from './rowWriter';
import { readMeta, tuneSearchIndex } from './schema';
import { readSnapshot } from './snapshot';

export interface Recovered {
  db: Database;
  /** The database's file: the snapshot read on demand, with the pages written since (PagedFile). */
  file: PagedFile;
  tapeId: string;
  /** Sequence number of the last record the database contains. */
  lastSeq: number;
  /** Journal records replayed onto the snapshot. */
  replayed: number;
  /** Length of the journal's good prefix, where a writer appends next. */
  validEnd: number;
  /** What of the journal the snapshot holds. */
  layout: JournalLayout;
  /** Bytes of a torn journal tail that were not replayed. */
  droppedBytes: number;
  /** The inode of the journal that was read (null: none), so a reader can follow on from it. */
  journalIno: number | null;
  /** The schema the snapshot had when it was older than this version's (migrated in memory). */
  migratedFrom: number | null;
}

/** Where the recovered database ends in its journal: what following a writer continues from. */
export const tailStartOf = (r: Recovered): TailStart => ({ ino: r.journalIno, offset: r.validEnd, lastSeq: r.lastSeq });

/**
 * A read-only open retries this many times when a writer's checkpoint replaced the snapshot and
 * the journal between its two reads, waiting 10 ms more each time (about 1.9 s in all).
 */
export const READ_ATTEMPTS = 20;
const UNLOCKED_READ_ATTEMPTS = 3;

/**
 * The snapshot with the journal replayed onto it. A live writer's checkpoint can replace both
 * between the two reads, leaving an old snapshot and a new journal; the sequence numbers show the
 * gap, and a reader (the writer holds the lock) reads both again.
 */
export async function recover(SQL: SqlJsStatic, file: string, journalFile: string, readOnly: boolean, maxBytes?: number): Promise<Recovered> {
  for (let attempt = 1; ; attempt++) {
    const { db, file: paged, migratedFrom } = readSnapshot(SQL, file, maxBytes);
    const drop = (): void => {
      db.close();
      paged.close();
    };
    try {
      const meta = readMeta(db);
      const tapeId = meta.get('tape_id') ?? '';
      const snapshotSeq = Number(meta.get('last_seq') ?? 0);
      const journalIno = inodeOf(journalFile);
      const contents = readJournal(journalFile, tapeId);
      // Replaced while being read: read the one now in place.
      if (inodeOf(journalFile) !== journalIno) {
        drop();
        continue;
      }
      const records = contents.records.filter((r) => r.seq > snapshotSeq);
      if (records.length && records[0].seq !== snapshotSeq + 1) {
        // Without a live writer a gap is damage, unless the writer checkpointed and closed just
        // now: a few quick retries tell the two apart.
        const writer = readOnly ? lockHolder(file) : null;
        if (readOnly && attempt < (writer === null ? UNLOCKED_READ_ATTEMPTS : READ_ATTEMPTS)) {
          drop();
          await new Promise((r) => setTimeout(r, 10 * attempt));
          continue;
        }
        const gap = `the snapshot ends at record ${snapshotSeq}, the journal goes on from record ${records[0].seq}`;
        throw new TapeFileError(
          journalFile,
          writer !== null
            ? `kept changing while being read: the writer (pid ${writer}) checkpointed during each of ${READ_ATTEMPTS} attempts (${gap}); try again`
            : `does not continue its snapshot: ${gap}`,
        );
      }
      // A setting stored in the index: only a writer makes it (a read-only open keeps the index as the file has it).
      if (!readOnly) tuneSearchIndex(db);
      replay(db, records, journalFile);
      const lastSeq = records.length ? records[records.length - 1].seq : snapshotSeq;
      return {
        db,
        file: paged,
        tapeId,
        lastSeq,
        replayed: records.length,
        validEnd: contents.validEnd,
        layout: layoutOf(contents.records, snapshotSeq),
        droppedBytes: contents.droppedBytes,
        journalIno,
        migratedFrom,
      };
    } catch (e) {
      drop();
      throw e;
    }
  }
}

/** Inserts the rows of journal records, in one transaction. */
export function replay(db: Database, records: readonly JournalRecord[], journalFile: string): void {
  try {
    insertRows(
      db,
      records.flatMap((r) => decodeRows(r.body)),
    );
  } catch (e) {
    throw new TapeFileError(
      journalFile,
      `cannot be replayed onto its snapshot: ${errorMessage(e)}; nothing was changed. Run 'agent-tape repair' on its tape to keep the records before the one that fails and set the rest aside`,
    );
  }
}

/**
 * The first of `records` that cannot be replayed after those before it (a body that does not
 * decode, rows SQLite refuses or runs out of memory on), with why; null when all replay. They are
 * applied in one transaction that is rolled back: `db` is left as it was.
 */
export function firstUnreplayable(db: Database, records: readonly JournalRecord[]): { record: JournalRecord; reason: string } | null {
  const writer = new RowWriter(db);
  db.run('BEGIN');
  try {
    for (const record of records) {
      try {
        for (const row of decodeRows(record.body)) writer.writeStored(row);
      } catch (e) {
        return { record, reason: errorMessage(e) };
      }
    }
    return null;
  } finally {
    try {
      db.run('ROLLBACK');
    } catch {
      // SQLite rolled back itself (out of memory, database full)
    }
    writer.free();
  }
}
