import * as fs from 'fs';
import * as path from 'path';
import { crc32 } from './crc32';
import { TapeFileError } from './errors';
import { fsyncDir, PRIVATE_FILE_MODE } from './fsutil';
import { GroupCommitWriter, type GroupCommitOptions } from './groupCommit';
import { openRegularSync, readRegularFileIfExistsSync } from './safeRead';

/*
 * The journal next to a snapshot (SPEC 2.9). Deliberately not `<file>-journal` or `-wal`: SQLite
 * would take such a file for a hot journal of the snapshot and "roll it back".
 *
 * File:   "TAPELOG2" + tape id (36 ASCII chars) + "\n"   — ties the journal to its snapshot
 * Record: u32 body length | u32 CRC-32 of (seq + body) | f64 seq | body   (little endian)
 * After the last record: zeros up to the preallocated end (a zero length ends the records).
 * Each record is one committed transaction. Sequence numbers increase by one across rotations and
 * the snapshot stores the last one it contains, so replay skips what a checkpoint already holds
 * even when a crash hit between the snapshot rename and the journal rotation.
 */
export const journalPathOf = (file: string): string => `${file}.tapelog`;

// 2: record bodies are binary rows (rowTuple.ts encodeRows), no longer JSON.
const MAGIC = 'TAPELOG2';
/** The header's length: a journal of records starts here. */
export const HEADER_BYTES = MAGIC.length + 36 + 1;
const FRAME_BYTES = 16;
/** The journal grows by this much zeroed space ahead of its records (see GroupCommitOptions). */
const PREALLOCATE_BYTES = 1 << 20;

export const journalHeader = (tapeId: string): Buffer => Buffer.from(`${MAGIC}${tapeId}\n`, 'latin1');

export function encodeRecord(seq: number, body: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_BYTES + body.length);
  buf.writeUInt32LE(body.length, 0);
  buf.writeDoubleLE(seq, 8);
  buf.set(body, FRAME_BYTES);
  buf.writeUInt32LE(crc32(buf, 8), 4);
  return buf;
}

export interface JournalRecord {
  seq: number;
  body: Buffer;
  /** Where the record starts and ends in its file. */
  start: number;
  end: number;
}

/**
 * The intact record starting at byte `off` of `bytes`, or null: the preallocated zeros after the
 * last record (a body is never empty), a record cut short, or one whose checksum fails.
 */
export function recordAt(bytes: Buffer, off: number): JournalRecord | null {
  if (off + FRAME_BYTES > bytes.length) return null;
  const len = bytes.readUInt32LE(off);
  const end = off + FRAME_BYTES + len;
  if (len === 0 || end > bytes.length || crc32(bytes, off + 8, end) !== bytes.readUInt32LE(off + 4)) return null;
  return { seq: bytes.readDoubleLE(off + 8), body: bytes.subarray(off + FRAME_BYTES, end), start: off, end };
}

export interface JournalContents {
  records: JournalRecord[];
  /** Length of the good prefix: header plus every intact record. */
  validEnd: number;
  /** Bytes after the good prefix: a torn or corrupt tail, dropped. */
  droppedBytes: number;
}

export interface JournalScan extends JournalContents {
  /** End of the bytes in use: the preallocated zeros after the records are not counted. */
  usedEnd: number;
  /**
   * What is wrong and where, when the bytes after the good prefix are not a torn last record:
   * damage in the middle, with records after it that dropping the tail would lose.
   */
  damage?: string;
}

const DAMAGE_HINT =
  "nothing was changed. Run 'agent-tape repair' on its tape to keep the records before the damage and set the rest aside, or move the journal away to open the snapshot without any of its records";

/**
 * The largest journal read. A writer checkpoints when its records pass 32 MiB, so a journal far
 * past that is not one of ours (or its checkpoints have failed for a long time); its records are
 * replayed into memory (see TAPE_MAX_BYTES).
 */
export const JOURNAL_MAX_BYTES = 1 << 30;
export const JOURNAL_WHAT = 'a tape journal';

/**
 * Reads a journal as far as it is intact and says what follows: nothing, a torn tail, or damage.
 * A missing file or an incomplete header (crash while creating it) reads as empty; a foreign
 * journal, or one that is not a regular file (a symlink to a device, a FIFO), throws.
 */
export function scanJournal(journalFile: string, tapeId: string): JournalScan {
  const bytes = readRegularFileIfExistsSync(journalFile, JOURNAL_MAX_BYTES, JOURNAL_WHAT);
  if (bytes === null) return { records: [], validEnd: 0, droppedBytes: 0, usedEnd: 0 };
  return scanJournalBytes(bytes, journalFile, tapeId);
}

/** scanJournal of a journal's bytes already read (a repair reads them through the descriptor it truncates). */
export function scanJournalBytes(bytes: Buffer, journalFile: string, tapeId: string): JournalScan {
  if (bytes.length < HEADER_BYTES) return { records: [], validEnd: 0, droppedBytes: bytes.length, usedEnd: bytes.length };
  const head = bytes.toString('latin1', 0, HEADER_BYTES);
  if (!head.startsWith(MAGIC)) throw new TapeFileError(journalFile, 'is not an Agent Tape journal (bad magic)');
  if (head !== journalHeader(tapeId).toString('latin1')) {
    throw new TapeFileError(
      journalFile,
      `belongs to another tape (id ${head.slice(MAGIC.length, -1)}, the snapshot is ${tapeId}); move it away to open the snapshot alone`,
    );
  }
  const records: JournalRecord[] = [];
  let off = HEADER_BYTES;
  let prevSeq: number | null = null;
  let damage: string | undefined;
  for (let r = recordAt(bytes, off); r !== null; r = recordAt(bytes, off)) {
    if (prevSeq !== null && r.seq !== prevSeq + 1) {
      damage = `is damaged at byte ${off}: record ${r.seq} follows record ${prevSeq}`;
      break;
    }
    prevSeq = r.seq;
    records.push(r);
    off = r.end;
  }
  let used = bytes.length;
  while (used > off && bytes[used - 1] === 0) used--;
  // A crash can only tear the record being written, the last one: beyond its own extent there are
  // only zeros. Data past a bad record means damage in the middle, and dropping it as a torn tail
  // would silently drop the acknowledged records after it.
  const badEnd = off + 4 <= used ? off + FRAME_BYTES + bytes.readUInt32LE(off) : Infinity;
  if (!damage && used > off && badEnd < used) {
    damage = `is damaged at byte ${off} (after record ${prevSeq ?? 'none'}), with ${used - badEnd} bytes of records after the damage`;
  }
  return { records, validEnd: off, droppedBytes: used - off, usedEnd: used, damage };
}

/** Reads a journal for replay: a torn tail is dropped, damage in the middle is refused. */
export function readJournal(journalFile: string, tapeId: string): JournalContents {
  const { records, validEnd, droppedBytes, damage } = scanJournal(journalFile, tapeId);
  if (damage) throw new TapeFileError(journalFile, `${damage}; ${DAMAGE_HINT}`);
  return { records, validEnd, droppedBytes };
}

async function createJournalFile(journalFile: string, tapeId: string, tail: Uint8Array): Promise<{ fd: number; end: number }> {
  const tmp = `${journalFile}.tmp-${process.pid}`;
  const h = await fs.promises.open(tmp, 'w', PRIVATE_FILE_MODE);
  try {
    await h.write(journalHeader(tapeId));
    if (tail.length) await h.write(tail);
    await h.datasync();
  } finally {
    await h.close();
  }
  await fs.promises.rename(tmp, journalFile);
  await fsyncDir(path.dirname(path.resolve(journalFile)));
  return { fd: fs.openSync(journalFile, 'r+'), end: HEADER_BYTES + tail.length };
}

/** Where a writer stands in its journal, for a checkpoint (see Journal.rotate). */
export interface JournalMark {
  /** Byte offset after the last record. */
  end: number;
  /** Sequence number of the last record. */
  seq: number;
  /** Where the last record starts; null when the journal has none. */
  lastRecordAt: number | null;
}

/** What the snapshot already holds of a journal being opened for appending. */
export interface JournalLayout {
  /** Where the journal's last intact record starts; null when it has none. */
  lastRecordAt: number | null;
  /** Records before this offset are in the snapshot. */
  checkpointedEnd: number;
}

/** The layout of a journal's records after `snapshotSeq`, the last one its snapshot holds. */
export function layoutOf(records: readonly JournalRecord[], snapshotSeq: number): JournalLayout {
  let checkpointedEnd = HEADER_BYTES;
  for (const r of records) if (r.seq <= snapshotSeq) checkpointedEnd = r.end;
  return { lastRecordAt: records.length ? records[records.length - 1].start : null, checkpointedEnd };
}

/** The writable journal of an open store. */
export class Journal {
  private constructor(
    private readonly file: string,
    private readonly tapeId: string,
    private writer: GroupCommitWriter,
    private lastSeq: number,
    private layout: JournalLayout,
  ) {}

  /**
   * Opens for appending after `lastSeq`. A torn tail found by `readJournal` (`tornBytes` of it) is
   * cut off first, so new records never follow garbage; the preallocated zeros after the records
   * stay. A missing or headerless journal is created.
   */
  static async open(
    file: string,
    tapeId: string,
    lastSeq: number,
    validEnd: number,
    tornBytes: number,
    layout: JournalLayout,
    options: GroupCommitOptions,
  ): Promise<Journal> {
    let fd: number;
    let end: number;
    if (validEnd < HEADER_BYTES) {
      ({ fd, end } = await createJournalFile(file, tapeId, new Uint8Array(0)));
      layout = { lastRecordAt: null, checkpointedEnd: HEADER_BYTES };
    } else {
      // Read moments ago, but opened again: refuse whatever was swapped in meanwhile that is not a file.
      fd = openRegularSync(file, undefined, JOURNAL_WHAT, true).fd;
      end = validEnd;
      if (tornBytes > 0) {
        fs.ftruncateSync(fd, end);
        fs.fdatasyncSync(fd);
      }
    }
    return new Journal(file, tapeId, new GroupCommitWriter(fd, end, { preallocateBytes: PREALLOCATE_BYTES, ...options }), lastSeq, layout);
  }

  get seq(): number {
    return this.lastSeq;
  }

  /** Bytes of records the snapshot does not hold yet: what an automatic checkpoint is measured against. */
  get recordBytes(): number {
    return this.writer.end - this.layout.checkpointedEnd;
  }

  /** Appends one transaction's record; resolves when it is written (durable: and fsynced). */
  append(body: Uint8Array, durable: boolean): Promise<void> {
    // Encoded before the sequence moves: a record that cannot be made (no memory) skips no number.
    const record = encodeRecord(this.lastSeq + 1, body);
    this.lastSeq++;
    this.layout.lastRecordAt = this.writer.end;
    return this.writer.write(record, durable);
  }

  /** Resolves when every record appended so far is as durable as asked. */
  barrier(durable: boolean): Promise<void> {
    return this.writer.write(new Uint8Array(0), durable);
  }

  /**
   * For a change to the database that no record describes (a deleted session): the sequence skips
   * a number and the next rotation keeps no record, so a reader following the journal cannot prove
   * it saw everything and reloads the tape, and no record written before the change stays on disk.
   * The checkpoint that must follow stamps the snapshot with the skipped number, so replay goes on
   * from it as usual.
   */
  breakContinuity(): void {
    this.lastSeq++;
    this.layout.lastRecordAt = null;
  }

  /** Where the journal stands now: a checkpoint's image holds every record up to here. */
  mark(): JournalMark {
    return { end: this.writer.end, seq: this.lastSeq, lastRecordAt: this.layout.lastRecordAt };
  }

  /**
   * Drops the records a checkpoint's snapshot holds (those before `mark`) but its last one: writes
   * a new journal of header + that record + the records after it, fsyncs it and renames it over
   * the old one. Appends wait meanwhile. Replay skips the kept record (the snapshot has it); it is
   * there so a reader following the journal from another process can tell, from the first
   * sequence number of the new file, whether it missed records that went into the snapshot.
   */
  rotate(mark: JournalMark): Promise<void> {
    return this.writer.exclusive(async (fd, end) => {
      const keepFrom = mark.lastRecordAt ?? mark.end;
      const tail = Buffer.allocUnsafe(end - keepFrom);
      if (tail.length) fs.readSync(fd, tail, 0, tail.length, keepFrom);
      const next = await createJournalFile(this.file, this.tapeId, tail);
      fs.closeSync(fd);
      const shift = keepFrom - HEADER_BYTES;
      this.layout = {
        lastRecordAt: this.layout.lastRecordAt === null ? null : this.layout.lastRecordAt - shift,
        checkpointedEnd: mark.end - shift,
      };
      return next;
    });
  }

  async close(): Promise<void> {
    fs.closeSync(await this.writer.close());
  }
}
