import * as fs from 'fs';
import type { Database } from 'sql.js';
import { TapeFileError } from './errors';
import { writeFileDurably } from './fsutil';
import { firstUnreplayable } from './recovery';
import { HEADER_BYTES, JOURNAL_MAX_BYTES, JOURNAL_WHAT, journalPathOf, scanJournal, scanJournalBytes } from './journal';
import { acquireLock } from './lock';
import { openRegularSync, readUpToSync } from './safeRead';
import { readMeta } from './schema';
import { readSnapshot } from './snapshot';
import { loadSqlJs } from './sqljs';

export type RepairOutcome =
  /** Nothing to repair: every byte in use is an intact record. */
  | { status: 'healthy'; journal: string; records: number; recordBytes: number }
  /** Only a torn last record, which opening drops by itself; nothing was changed. */
  | { status: 'torn'; journal: string; records: number; recordBytes: number; tornBytes: number }
  /**
   * Damage in the middle, or a record that cannot be replayed onto the snapshot (which fails every
   * open): the records before it were kept and the rest set aside.
   */
  | {
      status: 'repaired';
      journal: string;
      damage: string;
      records: number;
      recordBytes: number;
      setAsideBytes: number;
      setAsideFile: string;
    };

/**
 * Repairs a journal damaged in the middle, which opening refuses (journal.ts), or holding a record
 * that replay fails on (its rows refused by SQLite, or too big to insert: recovery.ts
 * firstUnreplayable), which fails every open as surely: keeps the records before the damage or
 * that record and moves the bytes from there to the end of the used part into
 * `<journal>.damaged-<timestamp>`, so they can still be examined. The records after an
 * unreplayable one go with it: they may build on it (entry ids are dense). Never runs by itself:
 * losing acknowledged records, even damaged ones, is the user's call.
 *
 * Crash-safe in this order: the set-aside bytes are written to their own file durably (temp file,
 * fsync, link, fsync directory) before the journal is touched; then the journal is truncated to
 * its intact prefix and fsynced. Truncating rewrites no byte of the prefix, so a crash at any moment
 * leaves either the damaged journal (repair again: the bytes are set aside once more) or the
 * repaired one, and the set-aside file is either complete or absent.
 */
export async function repairTape(file: string): Promise<RepairOutcome> {
  if (!fs.existsSync(file)) throw new TapeFileError(file, 'does not exist');
  const release = acquireLock(file);
  try {
    const journal = journalPathOf(file);
    if (!fs.existsSync(journal)) return { status: 'healthy', journal, records: 0, recordBytes: 0 };
    const { db, file: paged } = readSnapshot(await loadSqlJs(), file);
    try {
      return await repairJournal(db, journal);
    } finally {
      db.close();
      paged.close();
    }
  } finally {
    release();
  }
}

async function repairJournal(db: Database, journal: string): Promise<RepairOutcome> {
  const meta = readMeta(db);
  const tapeId = meta.get('tape_id') ?? '';
  // One descriptor for the scan and the truncation: what is cut is exactly what was read.
  const { fd, stat } = openRegularSync(journal, JOURNAL_MAX_BYTES, JOURNAL_WHAT, true);
  try {
    const bytes = readUpToSync(fd, stat.size, JOURNAL_MAX_BYTES);
    const scan = scanJournalBytes(bytes, journal, tapeId);
    const snapshotSeq = Number(meta.get('last_seq') ?? 0);
    const unreplayable = scan.damage
      ? null
      : firstUnreplayable(
          db,
          scan.records.filter((r) => r.seq > snapshotSeq),
        );
    const cutAt = unreplayable?.record.start ?? scan.validEnd;
    const keptRecords = scan.records.filter((r) => r.end <= cutAt).length;
    const kept = { journal, records: keptRecords, recordBytes: Math.max(0, cutAt - HEADER_BYTES) };
    let damage = scan.damage;
    if (unreplayable) {
      const after = scan.records.length - keptRecords - 1;
      damage = `has record ${unreplayable.record.seq} at byte ${cutAt}, which cannot be replayed onto its snapshot (${unreplayable.reason})${after ? `, and ${after} records after it` : ''}`;
    }
    if (!damage) return scan.droppedBytes ? { status: 'torn', ...kept, tornBytes: scan.droppedBytes } : { status: 'healthy', ...kept };
    const setAsideFile = `${journal}.damaged-${new Date().toISOString().replace(/[-:.]/g, '')}`;
    await writeFileDurably(setAsideFile, [bytes.subarray(cutAt, scan.usedEnd)], true);
    fs.ftruncateSync(fd, cutAt);
    fs.fsyncSync(fd);
    const after = scanJournal(journal, tapeId);
    if (after.damage || after.records.length !== keptRecords) {
      throw new TapeFileError(
        journal,
        `still does not read as its ${keptRecords} intact records after the repair (${after.damage ?? `${after.records.length} records`}); the set-aside bytes are in ${setAsideFile}`,
      );
    }
    return { status: 'repaired', ...kept, damage, setAsideBytes: scan.usedEnd - cutAt, setAsideFile };
  } finally {
    fs.closeSync(fd);
  }
}
