import * as fs from 'fs';
import { TapeFileError } from './errors';
import { writeFileDurably } from './fsutil';
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
  /** Damage in the middle: the intact prefix was kept and the rest set aside. */
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
 * Repairs a journal damaged in the middle, which opening refuses (journal.ts): keeps the intact
 * records before the damage and moves the bytes from the damage to the end of the used part into
 * `<journal>.damaged-<timestamp>`, so they can still be examined. Never runs by itself: losing
 * acknowledged records, even damaged ones, is the user's call.
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
    const tapeId = await tapeIdOf(file);
    const journal = journalPathOf(file);
    if (!fs.existsSync(journal)) return { status: 'healthy', journal, records: 0, recordBytes: 0 };
    // One descriptor for the scan and the truncation: what is cut is exactly what was read.
    const { fd, stat } = openRegularSync(journal, JOURNAL_MAX_BYTES, JOURNAL_WHAT, true);
    try {
      const bytes = readUpToSync(fd, stat.size, JOURNAL_MAX_BYTES);
      const scan = scanJournalBytes(bytes, journal, tapeId);
      const kept = { journal, records: scan.records.length, recordBytes: Math.max(0, scan.validEnd - HEADER_BYTES) };
      if (!scan.damage) return scan.droppedBytes ? { status: 'torn', ...kept, tornBytes: scan.droppedBytes } : { status: 'healthy', ...kept };
      const setAsideFile = `${journal}.damaged-${new Date().toISOString().replace(/[-:.]/g, '')}`;
      await writeFileDurably(setAsideFile, [bytes.subarray(scan.validEnd, scan.usedEnd)], true);
      fs.ftruncateSync(fd, scan.validEnd);
      fs.fsyncSync(fd);
      const after = scanJournal(journal, tapeId);
      if (after.damage || after.records.length !== scan.records.length) {
        throw new TapeFileError(
          journal,
          `still does not read as its ${scan.records.length} intact records after the repair (${after.damage ?? `${after.records.length} records`}); the set-aside bytes are in ${setAsideFile}`,
        );
      }
      return { status: 'repaired', ...kept, damage: scan.damage, setAsideBytes: scan.usedEnd - scan.validEnd, setAsideFile };
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    release();
  }
}

async function tapeIdOf(file: string): Promise<string> {
  const { db } = await readSnapshot(await loadSqlJs(), file);
  try {
    return readMeta(db).get('tape_id') ?? '';
  } finally {
    db.close();
  }
}
