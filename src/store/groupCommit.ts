import * as fs from 'fs';

interface Waiter {
  durable: boolean;
  resolve(): void;
  reject(e: unknown): void;
}

export interface GroupCommitOptions {
  /** Longest time a written but unsynced record waits for its fdatasync. */
  groupCommitMs: number;
  /**
   * Extend the file with zeros this many bytes at a time, ahead of the records. Overwriting
   * allocated blocks lets fdatasync skip the file-size and block-map update it needs for a growing
   * file (about a quarter of a durable append's latency on ext4). 0 turns it off. Readers must
   * take a zero length field for the end of the records.
   */
  preallocateBytes?: number;
}

let zeros: Buffer | undefined;

/**
 * Appends byte records to a file with group commit. Records queued in the same tick are written
 * with one write(2) (synchronous: a page-cache write of a few KB is cheaper than a thread-pool
 * round trip). A record is acknowledged once written, or, when `durable`, once an fdatasync that
 * started after its write has finished. Only one fdatasync is in flight at a time: records written
 * meanwhile wait for the next one, so N concurrent durable appends cost about two fsyncs, not N.
 * Non-durable records are still synced within `groupCommitMs`.
 */
export class GroupCommitWriter {
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private queueWaiters: Waiter[] = [];
  private flushScheduled = false;
  private unsynced: Waiter[] = [];
  private dirty = false;
  private syncing = false;
  private syncTimer: NodeJS.Timeout | undefined;
  private paused = 0;
  private failure: unknown;
  /** File size: bytes past `position` are preallocated zeros. */
  private allocated: number;

  constructor(
    private fd: number,
    private position: number,
    private readonly options: GroupCommitOptions,
  ) {
    this.allocated = fs.fstatSync(fd).size;
  }

  /** Bytes written or queued so far: where the next record will start. */
  get end(): number {
    return this.position + this.queuedBytes;
  }

  /** Resolves when the record is written (and synced, if durable). An empty record is a barrier. */
  write(bytes: Uint8Array, durable: boolean): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      if (bytes.length) {
        this.queue.push(bytes);
        this.queuedBytes += bytes.length;
      }
      this.queueWaiters.push({ durable, resolve, reject });
      if (!this.flushScheduled && !this.paused) {
        this.flushScheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /** Resolves when everything written so far is synced. */
  sync(): Promise<void> {
    return this.write(new Uint8Array(0), true);
  }

  /**
   * Runs `fn` with writes held back (they queue, unacknowledged) once everything before is on disk;
   * `fn` may replace the file (journal rotation) and returns the new fd and end position. When `fn`
   * fails the writer fails for good: every queued and later write is rejected.
   */
  async exclusive(fn: (fd: number, end: number) => Promise<{ fd: number; end: number }>): Promise<void> {
    this.paused++;
    try {
      await this.drain();
      let next: { fd: number; end: number };
      try {
        next = await fn(this.fd, this.position);
      } catch (e) {
        // `fn` may have replaced the file before it failed (a rotation's rename went through, then
        // opening the new journal did not): records written to our fd now could be lost on reopen,
        // so nothing more is written or acknowledged.
        this.fail(e, []);
        throw e;
      }
      this.fd = next.fd;
      this.position = next.end;
      this.allocated = fs.fstatSync(next.fd).size;
    } finally {
      this.paused--;
      if (!this.paused) this.flush();
    }
  }

  /**
   * Writes and syncs everything, then stops the timer; the caller closes the fd. A failed writer
   * has nothing it could still sync: it only hands the fd back.
   */
  async close(): Promise<number> {
    try {
      if (this.failure === undefined) await this.sync();
    } finally {
      clearTimeout(this.syncTimer);
    }
    return this.fd;
  }

  private async drain(): Promise<void> {
    const queued = this.takeQueue();
    const waiters = this.queueWaiters.splice(0);
    if (queued.length) this.writeOut(queued, waiters);
    else waiters.forEach((w) => this.unsynced.push(w));
    // The barrier waiter goes straight to the unsynced list: the queue is held back by `paused`.
    await new Promise<void>((resolve, reject) => {
      this.unsynced.push({ durable: true, resolve, reject });
      this.dirty = true;
      this.startSync();
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.paused || !this.queueWaiters.length) return;
    this.writeOut(this.takeQueue(), this.queueWaiters.splice(0));
  }

  private takeQueue(): Uint8Array[] {
    this.queuedBytes = 0;
    return this.queue.splice(0);
  }

  private writeOut(buffers: Uint8Array[], waiters: Waiter[]): void {
    try {
      const buf = buffers.length === 1 ? buffers[0] : Buffer.concat(buffers);
      this.preallocate(this.position + buf.length);
      let off = 0;
      while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off, this.position + off);
      this.position += buf.length;
      if (buf.length) this.dirty = true;
    } catch (e) {
      this.fail(e, waiters);
      return;
    }
    let durable = false;
    for (const w of waiters) {
      if (w.durable) {
        durable = true;
        this.unsynced.push(w);
      } else {
        w.resolve();
      }
    }
    if (durable) this.startSync();
    else if (this.dirty && !this.syncTimer) this.syncTimer = setTimeout(() => this.startSync(), this.options.groupCommitMs);
  }

  /** Makes the file at least `end` bytes long, growing it by whole preallocation chunks of zeros. */
  private preallocate(end: number): void {
    const chunk = this.options.preallocateBytes ?? 0;
    if (chunk <= 0 || end <= this.allocated) return;
    const target = Math.ceil(end / chunk) * chunk;
    zeros ??= Buffer.alloc(1 << 20);
    while (this.allocated < target) {
      this.allocated += fs.writeSync(this.fd, zeros, 0, Math.min(zeros.length, target - this.allocated), this.allocated);
    }
    this.dirty = true;
  }

  private startSync(): void {
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (this.syncing || !this.dirty) {
      // Nothing new on disk since the last sync finished: waiters (barriers) are already durable.
      if (!this.syncing) this.unsynced.splice(0).forEach((w) => w.resolve());
      return;
    }
    this.syncing = true;
    this.dirty = false;
    const waiters = this.unsynced.splice(0);
    fs.fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) {
        this.fail(err, waiters);
        return;
      }
      waiters.forEach((w) => w.resolve());
      if (this.unsynced.length) this.startSync();
      else if (this.dirty) this.syncTimer = setTimeout(() => this.startSync(), this.options.groupCommitMs);
    });
  }

  private fail(e: unknown, waiters: Waiter[]): void {
    this.failure = e;
    for (const w of [...waiters, ...this.unsynced.splice(0), ...this.queueWaiters.splice(0)]) w.reject(e);
    this.takeQueue();
  }
}
