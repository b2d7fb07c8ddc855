import type { Database, Statement } from 'sql.js';

/**
 * How long a transaction stays open for more appends. Each commit costs a full-text index flush
 * (a new FTS4 segment) besides its page writes; appends awaited one by one (durable ones wait for
 * their fsync) would otherwise pay it each.
 */
const COMMIT_DELAY_MS = 5;

/** Work a unit defers to the end of the transaction (see AppendTransaction.run). */
export type Defer = (work: () => void) => void;

/**
 * Appends made within a few milliseconds share one SQLite transaction, each one a savepoint in it
 * so it still lands whole or not at all: a commit writes dirty pages through sql.js's in-memory
 * file system and flushes the full-text index, which costs more than the inserts. Reads on the
 * same connection see the rows at once; durability is the journal's business, not the commit's.
 *
 * Work a unit defers (its full-text index entries) runs just before COMMIT, in the same
 * transaction, for the units that did not roll back: FTS4 flushes its pending terms into a new
 * index segment at every savepoint, so indexing inside each unit wrote one segment per append.
 *
 * The transaction commits COMMIT_DELAY_MS after it began, or earlier through `commit()`, when
 * something needs a committed database (search, export, checkpoint, close). Callbacks queued with
 * `afterCommit` run once their writes are committed.
 */
export class AppendTransaction {
  private open = false;
  private deferred: (() => void)[] = [];
  private committed: (() => void)[] = [];
  private readonly sql: Record<'begin' | 'commit' | 'savepoint' | 'releaseSavepoint' | 'rollbackToSavepoint' | 'rollback', Statement>;

  /**
   * `onCommitFailure` hears a commit that failed and rolled the tick back, or a unit whose failure
   * made SQLite roll back the whole transaction: either way the appends before it are lost from memory.
   */
  constructor(
    db: Database,
    private readonly onCommitFailure: (e: unknown) => void,
  ) {
    this.sql = {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      savepoint: db.prepare('SAVEPOINT append'),
      releaseSavepoint: db.prepare('RELEASE append'),
      rollbackToSavepoint: db.prepare('ROLLBACK TO append'),
      rollback: db.prepare('ROLLBACK'),
    };
  }

  /** Runs `fn` as one all-or-nothing unit of the open transaction. */
  run<T>(fn: (defer: Defer) => T): T {
    // The first unit owns the transaction and needs no savepoint: if it fails, nothing else is in it yet.
    const owner = !this.open;
    if (owner) {
      this.sql.begin.run();
      this.open = true;
      setTimeout(() => this.commitQuietly(), COMMIT_DELAY_MS).unref();
    } else {
      this.sql.savepoint.run();
    }
    const deferred: (() => void)[] = [];
    try {
      const result = fn((work) => deferred.push(work));
      if (!owner) this.sql.releaseSavepoint.run();
      for (const w of deferred) this.deferred.push(w);
      return result;
    } catch (e) {
      if (owner) {
        this.open = false;
        this.rollBackIfOpen();
      } else if (!this.rollBackUnit()) {
        // SQLite dropped the whole transaction, with earlier units whose records may be journaled.
        this.open = false;
        this.deferred = [];
        this.committed = [];
        this.onCommitFailure(e);
      }
      throw e;
    }
  }

  /**
   * Takes a failed unit's writes back; false when the transaction is gone: out of memory or a full
   * database make SQLite roll back the whole transaction itself ("no such savepoint").
   */
  private rollBackUnit(): boolean {
    try {
      this.sql.rollbackToSavepoint.run();
    } catch {
      return false;
    }
    this.sql.releaseSavepoint.run();
    return true;
  }

  /** ROLLBACK, unless SQLite already rolled back (its error, not this one, is what the caller hears). */
  private rollBackIfOpen(): void {
    try {
      this.sql.rollback.run();
    } catch {
      // "cannot rollback - no transaction is active"
    }
  }

  /** Runs `fn` when the current transaction commits (at once when none is open). */
  afterCommit(fn: () => void): void {
    if (this.open) this.committed.push(fn);
    else fn();
  }

  commit(): void {
    if (!this.open) return;
    this.open = false;
    const deferred = this.deferred.splice(0);
    const committed = this.committed.splice(0);
    try {
      for (const w of deferred) w();
      this.sql.commit.run();
    } catch (e) {
      this.rollBackIfOpen();
      this.onCommitFailure(e);
      throw e;
    }
    for (const fn of committed) fn();
  }

  free(): void {
    for (const s of Object.values(this.sql)) s.free();
  }

  /** The scheduled commit: its failure is reported through onCommitFailure, nobody awaits it. */
  private commitQuietly(): void {
    try {
      this.commit();
    } catch {
      // reported
    }
  }
}
