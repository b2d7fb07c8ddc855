import type { Disposable } from './appendEvents';
import { watchFile } from './fileWatch';
import type { JournalRecord } from './journal';
import { JournalTail, type TailStart } from './journalTail';

/** What a follower keeps in step: a read-only store (see TapeStore.follow). */
export interface FollowTarget {
  /** Applies records the writer journaled, in order. */
  apply(records: readonly JournalRecord[]): void;
  /** Reads the whole tape again; resolves with where the new database ends in the journal. */
  reload(): Promise<TailStart>;
}

/**
 * Keeps a read-only store in step with a writer in another process: on each change of the journal
 * (watched, and polled as a fallback) it applies the new records, or reloads the tape when records
 * may have been missed. One thing at a time: no read while a reload is under way.
 */
export class Follower implements Disposable {
  private tail: JournalTail;
  private readonly watch: Disposable;
  private reloading = false;
  private disposed = false;

  constructor(
    private readonly journalFile: string,
    private readonly tapeId: string,
    start: TailStart,
    private readonly target: FollowTarget,
    private readonly onError: (e: unknown) => void,
  ) {
    this.tail = new JournalTail(journalFile, tapeId, start);
    this.watch = watchFile(journalFile, () => this.catchUp());
    this.catchUp();
  }

  dispose(): void {
    this.disposed = true;
    this.watch.dispose();
    this.tail.close();
  }

  private catchUp(): void {
    if (this.disposed || this.reloading) return;
    try {
      const read = this.tail.read();
      if ('gap' in read) this.reload();
      else if (read.records.length) this.target.apply(read.records);
    } catch (e) {
      this.onError(e);
    }
  }

  private reload(): void {
    this.reloading = true;
    this.target
      .reload()
      .then((start) => {
        this.tail.close();
        this.tail = new JournalTail(this.journalFile, this.tapeId, start);
      })
      .catch(this.onError)
      .finally(() => {
        this.reloading = false;
        // Whatever was written during the reload.
        this.catchUp();
      });
  }
}
