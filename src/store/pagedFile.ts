import * as fs from 'fs';
import * as path from 'path';
import type { CheckpointImage } from './durability';
import { TapeFileError } from './errors';
import { fsyncDir, PRIVATE_FILE_MODE } from './fsutil';

/**
 * The database file sql.js works on for a file tape, read from the snapshot on disk as SQLite
 * asks for pages, with every page SQLite writes kept in memory until a checkpoint.
 *
 * sql.js keeps each database as a file of Emscripten's in-memory file system, and that file
 * system stores a file's bytes as whatever object it was created from, calling only `subarray`,
 * `set` and `length` on it afterwards (`slice` once, when the file is first written). Handing it
 * this object instead of the whole snapshot in a Buffer means opening a tape costs the pages read,
 * not the file's size: showing one session of a 2 GB tape reads a few megabytes.
 *
 * Reads look in the pages written since the last checkpoint, then in those a checkpoint is
 * writing, then in the snapshot, through a descriptor held open: a checkpoint writes a new file and
 * renames it over the old one, so a reader's snapshot never changes under it.
 *
 * That relies on a detail of sql.js, so it is checked at every checkpoint: one first commits a random
 * nonce and must find it among the pages written here. If it is not there (the file system replaced
 * the object: SQLite truncated the file, as VACUUM does, or sql.js changed), `capture` returns null
 * and the caller takes a full image of the database instead.
 */
export class PagedFile {
  private dirty = new Map<number, Uint8Array>();
  /** Pages a checkpoint is writing: the database as of its mark, until its snapshot is in place. */
  private frozen: Map<number, Uint8Array> | null = null;
  private closed = false;

  private constructor(
    private fd: number,
    private baseSize: number,
    /** The unit writes are kept in: the database's page size, so a page write is one entry. */
    readonly pageSize: number,
  ) {}

  /** The file system calls `slice` on the object a file is created from and keeps what it returns. */
  static open(fd: number, size: number, pageSize: number): { file: PagedFile; contents: object } {
    const file = new PagedFile(fd, size, pageSize);
    const contents = { length: size, subarray: (a: number, b: number) => file.subarray(a, b), slice: () => file };
    return { file, contents };
  }

  /**
   * The file system compares this with where a write ends to decide whether to reallocate the file;
   * it must never do so (that would read the whole tape into a new array).
   */
  get length(): number {
    return Number.MAX_SAFE_INTEGER;
  }

  /** Bytes `start` to `end`, as the file system's read asks. */
  subarray(start: number, end: number): Uint8Array {
    this.assertOpen();
    const out = new Uint8Array(Math.max(0, end - start));
    let at = start;
    while (at < end) {
      const page = Math.floor(at / this.pageSize);
      const pageStart = page * this.pageSize;
      const upto = Math.min(end, pageStart + this.pageSize);
      const kept = this.dirty.get(page) ?? this.frozen?.get(page);
      if (kept) {
        out.set(kept.subarray(at - pageStart, upto - pageStart), at - start);
        at = upto;
        continue;
      }
      // Runs of pages nobody wrote are read from the snapshot in one call.
      let runEnd = upto;
      while (runEnd < end && !this.isKept(Math.floor(runEnd / this.pageSize))) runEnd = Math.min(end, runEnd + this.pageSize);
      this.readBase(out, at - start, at, runEnd);
      at = runEnd;
    }
    return out;
  }

  /** `bytes` written at `position`, as the file system's write does. */
  set(bytes: Uint8Array, position: number): void {
    this.assertOpen();
    let at = 0;
    while (at < bytes.length) {
      const pos = position + at;
      const page = Math.floor(pos / this.pageSize);
      const offset = pos - page * this.pageSize;
      const n = Math.min(bytes.length - at, this.pageSize - offset);
      let kept = this.dirty.get(page);
      if (!kept) {
        kept = n === this.pageSize ? new Uint8Array(this.pageSize) : this.subarray(page * this.pageSize, (page + 1) * this.pageSize);
        this.dirty.set(page, kept);
      }
      kept.set(bytes.subarray(at, at + n), offset);
      at += n;
    }
  }

  /** Bytes held in memory: the pages written since the snapshot (and those a checkpoint writes). */
  heldBytes(): number {
    return (this.dirty.size + (this.frozen?.size ?? 0)) * this.pageSize;
  }

  /**
   * Takes the pages written so far for a checkpoint of a database of `size` bytes, after checking
   * that the file system still writes here (`nonce`, just committed, must be among them); null when
   * it does not. Later writes go to a fresh set, so the checkpoint's pages stay as they are.
   */
  capture(size: number, nonce: Uint8Array): SnapshotPatch | null {
    this.assertOpen();
    // Checkpoints never overlap (Durability): a second capture would mix two marks.
    if (this.frozen !== null) throw new Error('a checkpoint of this tape is already being written');
    if (!this.holds(nonce)) return null;
    const pages = this.dirty;
    this.frozen = pages;
    this.dirty = new Map();
    return new SnapshotPatch(this, pages, size);
  }

  /** The snapshot now holds the checkpoint's pages: read it from `fd` from now on. */
  rebase(fd: number, size: number): void {
    const old = this.fd;
    this.fd = fd;
    this.baseSize = size;
    this.frozen = null;
    fs.closeSync(old);
  }

  /**
   * A checkpoint copies the snapshot by name: that name must still be the file read here, and a
   * regular one (not a FIFO or a link to a device put in its place, which the copy would read
   * without end). Returns its size, which the copy must have.
   */
  assertSnapshotAt(dst: string): number {
    this.assertOpen();
    const held = fs.fstatSync(this.fd);
    const named = fs.lstatSync(dst, { throwIfNoEntry: false });
    if (named?.isFile() && named.ino === held.ino && named.dev === held.dev) return held.size;
    throw replaced(dst);
  }

  /** A checkpoint failed: its pages are kept again (under any written since). */
  thaw(): void {
    for (const [page, bytes] of this.frozen ?? []) if (!this.dirty.has(page)) this.dirty.set(page, bytes);
    this.frozen = null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.dirty.clear();
    this.frozen = null;
    fs.closeSync(this.fd);
  }

  /** A closed descriptor's number may be another file's by now: never read or write through it. */
  private assertOpen(): void {
    if (this.closed) throw new Error("the tape's snapshot file was closed while its database was still in use");
  }

  private isKept(page: number): boolean {
    return this.dirty.has(page) || (this.frozen?.has(page) ?? false);
  }

  private holds(nonce: Uint8Array): boolean {
    const needle = Buffer.from(nonce);
    for (const page of this.dirty.values()) if (Buffer.from(page.buffer, page.byteOffset, page.length).indexOf(needle) >= 0) return true;
    return false;
  }

  /** Snapshot bytes `from` to `to` into `out` at `at`; past the snapshot's end the file reads as zeros. */
  private readBase(out: Uint8Array, at: number, from: number, to: number): void {
    const end = Math.min(to, this.baseSize);
    for (let pos = from; pos < end;) {
      const n = fs.readSync(this.fd, out, at + (pos - from), end - pos, pos);
      if (n === 0) throw new Error(`the tape's snapshot ended at ${pos} bytes while ${this.baseSize} were expected (changed by another program?)`);
      pos += n;
    }
  }
}

/**
 * A checkpoint's image: the snapshot as it is plus the pages written since. `write` makes it the
 * new snapshot durably (a copy of the old file, the pages written into it, fsync, rename), so a
 * crash leaves the old snapshot or the new one, and readers holding the old file keep reading it.
 */
export class SnapshotPatch implements CheckpointImage {
  constructor(
    private readonly file: PagedFile,
    private readonly pages: ReadonlyMap<number, Uint8Array>,
    readonly size: number,
  ) {}

  /** `beforeCommit` runs once the new file is synced, before it replaces `dst`; throwing there leaves `dst` as it was. */
  async write(dst: string, beforeCommit: () => void): Promise<void> {
    const pageSize = this.file.pageSize;
    const tmp = `${dst}.tmp-${process.pid}-${Date.now().toString(36)}`;
    let reader: number | undefined;
    try {
      const size = this.file.assertSnapshotAt(dst);
      // A clone where the file system can (btrfs, XFS, APFS), a copy in the kernel elsewhere.
      await fs.promises.copyFile(dst, tmp, fs.constants.COPYFILE_FICLONE);
      // Swapped between the check and the copy: the copy is of something else.
      if ((await fs.promises.stat(tmp)).size !== size) throw replaced(dst);
      await fs.promises.chmod(tmp, PRIVATE_FILE_MODE);
      const h = await fs.promises.open(tmp, 'r+');
      try {
        // Written synchronously, a run of adjacent pages per call: they only go to the page cache
        // (the fsync below is what takes time), and awaiting each page's write would wait for a
        // turn of an event loop that a busy writer keeps full (measured: 25 s for 56 MB).
        for (const run of runsOf(this.pages, pageSize, this.size)) fs.writevSync(h.fd, run.pages, run.at);
        await h.truncate(this.size);
        await h.datasync();
      } finally {
        await h.close();
      }
      reader = fs.openSync(tmp, 'r');
      beforeCommit();
      await fs.promises.rename(tmp, dst);
    } catch (e) {
      if (reader !== undefined) fs.closeSync(reader);
      await fs.promises.rm(tmp, { force: true });
      this.file.thaw();
      throw e;
    }
    this.file.rebase(reader, this.size);
    await fsyncDir(path.dirname(path.resolve(dst)));
  }
}

const replaced = (dst: string): TapeFileError =>
  new TapeFileError(
    dst,
    'was replaced by another program while open for writing; nothing was checkpointed (the journal still holds every append: close the tape and put its snapshot back)',
  );

/** The pages below `size`, in order, as runs of adjacent pages: one positioned write each. */
function runsOf(pages: ReadonlyMap<number, Uint8Array>, pageSize: number, size: number): { at: number; pages: Uint8Array[] }[] {
  const runs: { at: number; pages: Uint8Array[] }[] = [];
  let last = -2;
  for (const [page, bytes] of [...pages].sort((a, b) => a[0] - b[0])) {
    const at = page * pageSize;
    if (at >= size) break;
    const part = bytes.subarray(0, Math.min(pageSize, size - at));
    if (page === last + 1) runs[runs.length - 1].pages.push(part);
    else runs.push({ at, pages: [part] });
    last = page;
  }
  return runs;
}
