import type { Database, Statement } from 'sql.js';

/**
 * Appends made in the same tick share one SQLite transaction, each one a savepoint in it so it
 * still lands whole or not at all: a commit writes dirty pages through sql.js's in-memory file
 * system, which costs more than the inserts. The transaction commits in a microtask, before any
 * I/O callback runs, or earlier through `commit()` when something needs a committed database
 * (export, checkpoint). Callbacks queued with `afterCommit` run once their writes are committed.
 */
export class TickTransaction {
  private open = false;
  private committed: (() => void)[] = [];
  private readonly sql: Record<'begin' | 'commit' | 'savepoint' | 'releaseSavepoint' | 'rollbackToSavepoint' | 'rollback', Statement>;

  constructor(db: Database) {
    this.sql = {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      savepoint: db.prepare('SAVEPOINT append'),
      releaseSavepoint: db.prepare('RELEASE append'),
      rollbackToSavepoint: db.prepare('ROLLBACK TO append'),
      rollback: db.prepare('ROLLBACK'),
    };
  }

  /** Runs `fn` as one all-or-nothing unit of the tick's transaction. */
  run<T>(fn: () => T): T {
    // The first unit of a tick owns the transaction and needs no savepoint of its own.
    const owner = !this.open;
    if (owner) {
      this.sql.begin.run();
      this.open = true;
      queueMicrotask(() => this.commit());
    } else {
      this.sql.savepoint.run();
    }
    try {
      const result = fn();
      if (!owner) this.sql.releaseSavepoint.run();
      return result;
    } catch (e) {
      if (owner) {
        this.sql.rollback.run();
        this.open = false;
      } else {
        this.sql.rollbackToSavepoint.run();
        this.sql.releaseSavepoint.run();
      }
      throw e;
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
    this.sql.commit.run();
    for (const fn of this.committed.splice(0)) fn();
  }

  free(): void {
    for (const s of Object.values(this.sql)) s.free();
  }
}
