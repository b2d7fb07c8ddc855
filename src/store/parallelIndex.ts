import * as fs from 'fs';
import * as path from 'path';
import type { Database } from 'sql.js';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'worker_threads';
import type { JsonObject, Kind } from '../tape/entry';
import { DRAINED, FAILED, PROGRESS, type IndexBatch, type IndexReply, type IndexWorkerData } from './indexBatch';
import { adoptIndex } from './indexSegments';
import { INDEX_ROW, indexText } from './search';

/** Rows (or payload bytes) gathered before they go to the worker as one message. */
const BATCH_ROWS = 256;
const BATCH_BYTES = 1 << 20;

export interface IndexerOptions {
  /** The worker's file; when it is missing, indexing stays on this thread. */
  script?: string;
  /** A worker that indexes nothing for this long while asked to drain is taken for dead. */
  stallMs?: number;
}

interface PendingRow {
  id: number;
  kind: Kind;
  name: string;
  payload: Uint8Array;
}

/**
 * Full-text indexing on a second thread, for bulk writers (the CLI's `append`): FTS4 indexing is
 * about 40% of an append's cost, and a worker does it while this thread parses, validates,
 * inserts and journals the next rows. The worker builds index segments of the rows it is sent
 * (indexWorker.ts); `drainInto` waits for them and adds them to the tape's index
 * (indexSegments.ts), at each point where the index must be whole: before a search, an export, a
 * checkpoint's image.
 *
 * The worker only speeds things up: the rows sent since the last drain are kept, and if the worker
 * fails, stalls or cannot start, they are indexed here and every later row too. The index is no
 * more durable than before: it is rebuilt from the journal like the rows.
 */
export class ParallelIndexer {
  private worker: Worker | null = null;
  private replies: MessagePort | null = null;
  private cells: Int32Array | null = null;
  private seq = 0;
  /** Sent (or about to be) since the last drain. */
  private pending: PendingRow[] = [];
  private unsent = 0;
  private unsentBytes = 0;
  private sendScheduled = false;

  private readonly stallMs: number;

  /** Starts the worker, which takes a while to load SQLite: start it before opening the tape. */
  constructor({ script = path.join(__dirname, 'indexWorker.js'), stallMs = 5_000 }: IndexerOptions = {}) {
    this.stallMs = stallMs;
    if (!fs.existsSync(script)) return;
    const state = new SharedArrayBuffer(8);
    const { port1, port2 } = new MessageChannel();
    const data: IndexWorkerData = { state, replies: port2 };
    try {
      this.worker = new Worker(script, { workerData: data, transferList: [port2] });
    } catch {
      return;
    }
    // The worker never keeps a process alive: a CLI ends when its work does.
    this.worker.unref();
    // Nothing to report here: a worker that failed fails its next drain, which indexes its rows here.
    this.worker.on('error', () => undefined);
    this.replies = port1;
    this.cells = new Int32Array(state);
  }

  /** Whether rows go to the worker (false: index them here, as before). */
  get active(): boolean {
    return this.worker !== null;
  }

  /** Queues a row (its id in `entries`, its kind, name and payload JSON as UTF-8) for the worker. */
  add(id: number, kind: Kind, name: string, payload: Uint8Array): void {
    this.pending.push({ id, kind, name, payload });
    this.unsentBytes += payload.length;
    if (++this.unsent >= BATCH_ROWS || this.unsentBytes >= BATCH_BYTES) this.send();
    else if (!this.sendScheduled) {
      this.sendScheduled = true;
      setImmediate(() => this.send());
    }
  }

  /**
   * Waits for the segments of every row queued so far and adds them to `db`'s index (the database
   * the rows are in), in a transaction of its own (call it with none open). Blocks this thread
   * while the worker catches up.
   */
  drainInto(db: Database): void {
    if (!this.pending.length) return;
    const image = this.worker ? this.collect() : null;
    if (image) {
      try {
        adoptIndex(db, image);
        this.pending = [];
        return;
      } catch {
        // Nothing of it was added: the rows are indexed here instead, and from now on.
        this.dispose();
      }
    }
    db.run('BEGIN');
    try {
      indexHere(db, this.pending);
      db.run('COMMIT');
    } catch (e) {
      db.run('ROLLBACK');
      throw e;
    }
    this.pending = [];
  }

  dispose(): void {
    void this.worker?.terminate();
    this.replies?.close();
    this.worker = this.replies = null;
  }

  private send(): void {
    this.sendScheduled = false;
    if (!this.unsent || !this.worker) return;
    const rows = this.pending.slice(-this.unsent);
    this.unsent = this.unsentBytes = 0;
    const ends = new Uint32Array(rows.length);
    let bytes = 0;
    rows.forEach((r, i) => (ends[i] = bytes += r.payload.length));
    const payloads = new Uint8Array(bytes);
    rows.forEach((r, i) => payloads.set(r.payload, ends[i] - r.payload.length));
    const batch: IndexBatch = {
      type: 'rows',
      ids: Float64Array.from(rows, (r) => r.id),
      kinds: rows.map((r) => r.kind),
      names: rows.map((r) => r.name),
      payloads,
      ends,
    };
    this.worker.postMessage(batch, [batch.ids.buffer, payloads.buffer, ends.buffer] as ArrayBuffer[]);
  }

  /** The worker's index of every pending row; null (and the worker gone) when it failed or stalled. */
  private collect(): Uint8Array | null {
    this.send();
    const cells = this.cells!;
    const seq = ++this.seq;
    this.worker!.postMessage({ type: 'drain', seq });
    let progress = Atomics.load(cells, PROGRESS);
    let lastProgressAt = Date.now();
    for (;;) {
      const drained = Atomics.load(cells, DRAINED);
      if (drained === seq) break;
      if (drained === FAILED) return this.giveUp();
      Atomics.wait(cells, DRAINED, drained, 50);
      const now = Atomics.load(cells, PROGRESS);
      if (now !== progress) [progress, lastProgressAt] = [now, Date.now()];
      else if (Date.now() - lastProgressAt > this.stallMs) return this.giveUp();
    }
    const reply = receiveMessageOnPort(this.replies!)?.message as IndexReply | undefined;
    return reply?.image ?? this.giveUp();
  }

  private giveUp(): null {
    this.dispose();
    return null;
  }
}

/** Indexes rows on this thread, as the write path does without a worker. */
function indexHere(db: Database, rows: readonly PendingRow[]): void {
  const put = db.prepare(INDEX_ROW);
  const decoder = new TextDecoder();
  try {
    for (const r of rows) put.run([r.id, Buffer.from(indexText(r.kind, r.name, JSON.parse(decoder.decode(r.payload)) as JsonObject))]);
  } finally {
    put.free();
  }
}
