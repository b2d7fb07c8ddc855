import * as fs from 'fs';
import { TapeFileError } from './errors';
import { inodeOf } from './fsutil';
import { HEADER_BYTES, JOURNAL_MAX_BYTES, JOURNAL_WHAT, journalHeader, recordAt, type JournalRecord } from './journal';
import { openRegularSync } from './safeRead';

export type TailRead =
  | { records: JournalRecord[] }
  /** Records may have been missed (checkpointed before they could be read, another tape): reload. */
  | { gap: string };

/** Where the reader's database ends in the journal it was loaded from. */
export interface TailStart {
  /** The journal file's inode when it was read, or null when there was none. */
  ino: number | null;
  /** The byte offset after the last record read. */
  offset: number;
  /** The last record the database contains. */
  lastSeq: number;
}

/**
 * Reads what a writer in another process appends to a journal, record by record, across
 * rotations. The file it has open is read to its end before it moves to the file now at the path:
 * a rotation renames a new journal over the old one, and the records written before it stay
 * readable through the old descriptor, while the new journal starts with the last record the new
 * snapshot holds (Journal.rotate keeps it for this) and goes on with those it does not. Continuity
 * is proven when the new journal's first record is at or before the next one we need; a later one
 * means a second checkpoint took records we never saw into the snapshot, and a journal with no
 * record at all (a tape's first) proves nothing: both ask for a reload.
 */
export class JournalTail {
  private fd: number | null = null;
  private ino: number | null;
  private offset: number;
  private lastSeq: number;
  private first = true;

  constructor(
    private readonly file: string,
    private readonly tapeId: string,
    start: TailStart,
  ) {
    this.ino = start.ino;
    this.offset = start.offset;
    this.lastSeq = start.lastSeq;
  }

  /** Records appended since the last read (none while a record is still being written). */
  read(): TailRead {
    const records: JournalRecord[] = [];
    for (;;) {
      if (this.fd !== null) {
        const gap = this.drain(records).gap;
        if (gap) return { gap };
      }
      const current = inodeOf(this.file);
      if (current === null || (this.fd !== null && current === this.ino)) return { records };
      const switched = this.open();
      if (switched === 'gone') return { records };
      if (switched === 'foreign') return { gap: `${this.file} now belongs to another tape` };
      if (switched === 'new') {
        const { gap, proven } = this.drain(records);
        if (gap) return { gap };
        if (!proven) return { gap: `${this.file} was replaced by a checkpoint and holds no record to continue from` };
      }
    }
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /**
   * Opens the file at the path: the journal we were loaded from, or a new one. What is not a
   * regular file (a FIFO, a symlink to a device swapped in) is refused, naming the file.
   */
  private open(): 'same' | 'new' | 'gone' | 'foreign' {
    this.close();
    let ino: number;
    try {
      const { fd, stat } = openRegularSync(this.file, undefined, JOURNAL_WHAT);
      this.fd = fd;
      ino = stat.ino;
    } catch (e) {
      if (fs.existsSync(this.file)) throw e;
      return 'gone'; // replaced again while we looked: the next read finds it
    }
    const same = this.first && ino === this.ino;
    this.first = false;
    this.ino = ino;
    if (same) return 'same';
    const head = Buffer.alloc(HEADER_BYTES);
    fs.readSync(this.fd, head, 0, HEADER_BYTES, 0);
    if (!head.equals(journalHeader(this.tapeId))) return 'foreign';
    this.offset = HEADER_BYTES;
    return 'new';
  }

  /** Reads the open file's records after `offset`; `proven` when one starts at or before the next we need. */
  private drain(into: JournalRecord[]): { gap?: string; proven: boolean } {
    const fd = this.fd as number;
    const size = fs.fstatSync(fd).size;
    if (size <= this.offset) return { proven: false };
    if (size > JOURNAL_MAX_BYTES)
      throw new TapeFileError(this.file, `has grown past the ${JOURNAL_MAX_BYTES >> 20} MiB limit for ${JOURNAL_WHAT}; refusing to read on`);
    // To the end of the file: at most the preallocated megabyte of zeros beyond the records.
    const bytes = Buffer.allocUnsafe(size - this.offset);
    const view = bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, this.offset));
    let off = 0;
    let proven = false;
    for (let r = recordAt(view, off); r !== null; r = recordAt(view, off)) {
      if (r.seq > this.lastSeq + 1) return { gap: `records ${this.lastSeq + 1} to ${r.seq - 1} were checkpointed before they could be read`, proven };
      proven = true;
      if (r.seq === this.lastSeq + 1) {
        into.push({ ...r, start: this.offset + r.start, end: this.offset + r.end });
        this.lastSeq = r.seq;
      }
      off = r.end;
    }
    this.offset += off;
    return { proven };
  }
}
