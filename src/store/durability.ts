import { errorMessage } from '../tape/errorMessage';
import { TapeFullError, TapeStoreFailedError } from './errors';
import { fileSize } from './fsutil';
import { JOURNAL_MAX_BYTES, type Journal } from './journal';

export interface DurabilityOptions {
  /**
   * Journal size that triggers an automatic checkpoint. By default 32 MiB, or on a tape over eight
   * times that an eighth of the snapshot's size up to 128 MiB: a checkpoint writes a new snapshot
   * of the tape's whole size (on a 2 GB tape one every 32 MiB would write 64 bytes for each byte
   * appended), while the pages written until then are held in memory (about twice the records).
   */
  checkpointBytes?: number;
}

/** Below this many journal bytes a close never checkpoints (see Durability.close). */
const CLOSE_CHECKPOINT_MIN_BYTES = 1 << 20;
const DEFAULT_CHECKPOINT_BYTES = 32 << 20;
/** The largest journal an automatic checkpoint waits for on a big tape (see DurabilityOptions). */
const AUTO_CHECKPOINT_MAX_BYTES = 128 << 20;
/** The most journal a close leaves for the next open to replay (see Durability.close). */
const CLOSE_REPLAY_MAX_BYTES = 16 << 20;

/** The database as of a checkpoint's mark: the bytes of a whole image, or a SnapshotPatch. */
export interface CheckpointImage {
  /**
   * Replaces the snapshot `file` durably (temp file, fsync, rename, fsync the directory). `beforeCommit`
   * runs once the new file is synced, before the rename; throwing there leaves the snapshot as it was.
   */
  write(file: string, beforeCommit: () => void): Promise<void>;
}

/** Takes the database's image for a checkpoint, stamped with the last journal record it contains. */
export type CaptureImage = (lastSeq: number) => CheckpointImage;

/**
 * What makes a writable file tape durable (SPEC 2.9): each committed transaction's journal record,
 * checkpoints of the whole database to the snapshot with journal rotation, and the failed state.
 * Once the journal cannot be written, or a rotation leaves it in doubt, the in-memory database is
 * ahead of the disk: the store fails for good, acknowledging no append and checkpointing nothing,
 * so rows of rejected appends never reach the snapshot. Reopening recovers every acknowledged one.
 */
export class Durability {
  private failure: TapeStoreFailedError | undefined;
  private checkpointing: Promise<void> | undefined;
  private backgroundError: unknown;
  /** The snapshot's size, as of the open or the last checkpoint. */
  private snapshotBytes: number;

  constructor(
    private readonly file: string,
    private readonly journal: Journal,
    private readonly capture: CaptureImage,
    private readonly options: DurabilityOptions,
  ) {
    this.snapshotBytes = fileSize(file);
  }

  /** Throws the failure that stopped the store, if any. */
  assertHealthy(): void {
    if (this.failure) throw this.failure;
  }

  /** Journals one committed transaction; resolves when written (durable: and fsynced). */
  persist(body: Uint8Array, durable: boolean): Promise<void> {
    let written: Promise<void>;
    try {
      written = this.journal.append(body, durable).catch((e: unknown) => this.fail(e));
    } catch (e) {
      // The rows are in the database but their record could not be made: the disk is behind.
      this.fail(e);
    }
    const threshold = this.options.checkpointBytes ?? Math.max(DEFAULT_CHECKPOINT_BYTES, Math.min(this.snapshotBytes / 8, AUTO_CHECKPOINT_MAX_BYTES));
    if (this.journal.recordBytes > threshold && !this.checkpointing) {
      this.checkpoint().catch((e: unknown) => (this.backgroundError ??= e));
    }
    // Back pressure: a writer that never waits for I/O (appends acknowledged as soon as written)
    // starves the checkpoint's own I/O of event-loop turns, and the journal grows without end.
    // Past twice the threshold its appends wait for the checkpoint under way.
    const running = this.checkpointing;
    if (running && this.journal.recordBytes > 2 * threshold) return written.then(() => running.catch(() => undefined));
    return written;
  }

  /**
   * Refuses, before anything is written, a record of `incomingBytes` that would take the journal
   * past what an open reads (JOURNAL_MAX_BYTES, less a checkpoint's worth): checkpoints that keep
   * failing must not let the journal grow into a tape that no longer opens.
   */
  checkJournalRoom(incomingBytes: number): void {
    if (this.journal.recordBytes + incomingBytes <= JOURNAL_MAX_BYTES - AUTO_CHECKPOINT_MAX_BYTES) return;
    const mib = Math.round(this.journal.recordBytes / (1 << 20));
    throw new TapeFullError(
      this.file,
      `has ${mib} MiB of journal records that no checkpoint has taken in (${errorMessage(this.backgroundError ?? 'checkpoints are behind')}); nothing was written. Close the tape and open it again to checkpoint it`,
    );
  }

  /** Resolves when everything journaled so far is as durable as asked. */
  barrier(durable: boolean): Promise<void> {
    return this.journal.barrier(durable).catch((e: unknown) => this.fail(e));
  }

  /**
   * Writes the image over the snapshot and rotates the journal. Only taking the image blocks; the
   * bytes are written while appends continue into the journal, and the rotation keeps exactly the
   * records the snapshot does not contain. Checkpoints never overlap, so the image is not reused
   * while being written.
   */
  checkpoint(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.checkpointing ??= (async () => {
      const mark = this.journal.mark();
      const image = this.capture(mark.seq);
      // Records queued before the capture are written by now; if one failed, its rows are in the
      // image and must not replace the snapshot.
      await image.write(this.file, () => this.assertHealthy());
      this.snapshotBytes = fileSize(this.file);
      await this.journal.rotate(mark).catch((e: unknown) => this.fail(e));
    })().finally(() => (this.checkpointing = undefined));
    return this.checkpointing;
  }

  /**
   * A checkpoint after the database was changed outside the journal (see Journal.breakContinuity):
   * once any checkpoint under way is done, so that the image taken is the changed database.
   */
  async checkpointRewrite(): Promise<void> {
    await this.checkpointing?.catch(() => undefined);
    if (this.failure) throw this.failure;
    this.journal.breakContinuity();
    await this.checkpoint();
  }

  /**
   * Waits for pending records and checkpoints, fsyncs the journal, checkpoints once more when the
   * journal is worth it (or `force`: a migrated schema), and closes the journal. A failed store
   * closes without touching the snapshot. Rethrows a failed background checkpoint.
   *
   * A checkpoint rewrites the whole snapshot: on a 100 MB tape, closing after one append (a CLI
   * `append` of one line, a window closed after a short chat) would write 100 MB to keep 1 KB.
   * The journal is as durable as the snapshot, so a close leaves small journals alone: one that
   * holds less than an eighth of the snapshot's size (and less than 1 MiB on small tapes) costs
   * the next open a replay of at most that, in place of a full rewrite now. Since opening reads
   * pages on demand, that replay is most of an open's cost: past 16 MiB a close checkpoints anyway.
   */
  async close(force: boolean): Promise<void> {
    try {
      await this.checkpointing?.catch(() => undefined);
      if (!this.failure) {
        await this.barrier(true);
        const worthIt = this.journal.recordBytes > Math.max(CLOSE_CHECKPOINT_MIN_BYTES, Math.min(this.snapshotBytes / 8, CLOSE_REPLAY_MAX_BYTES));
        if (force || worthIt) await this.checkpoint();
      }
    } finally {
      await this.journal.close();
    }
    if (this.backgroundError) throw this.backgroundError;
  }

  /** Puts the store in its failed state (the in-memory database can no longer be trusted). */
  markFailed(cause: unknown, what?: string): void {
    this.failure ??= new TapeStoreFailedError(this.file, cause, what);
  }

  private fail(cause: unknown): never {
    this.markFailed(cause);
    throw this.failure;
  }
}
