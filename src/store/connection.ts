import type { Database, Statement } from 'sql.js';
import { Appender } from './appender';
import { TapeQueries } from './queries';
import { RowWriter } from './rowWriter';
import { SearchIndex } from './search';
import { AppendTransaction } from './appendTransaction';
import type { ParallelIndexer } from './parallelIndex';

/** The parts of a store that read or write its database; a read-only store's reload replaces them. */
export class Connection {
  readonly queries: TapeQueries;
  readonly transaction: AppendTransaction;
  readonly rowWriter: RowWriter;
  readonly appender: Appender;
  readonly search: SearchIndex;
  private readonly pageCount: Statement;
  /** Fixed for a database's life: only a VACUUM after a new `page_size` would change it, and none is run. */
  private readonly pageSize: number;

  /** `file` names the tape in errors about what its database holds; `checkRoom` refuses an append that would make the tape too big to open (tapeSize.ts); `indexer`: see ParallelIndexer. */
  constructor(
    readonly db: Database,
    file: string,
    checkRoom: (incomingBytes: number) => void,
    onCommitFailure: (e: unknown) => void,
    private readonly indexer?: ParallelIndexer,
  ) {
    this.queries = new TapeQueries(db, file);
    this.transaction = new AppendTransaction(db, onCommitFailure);
    this.rowWriter = new RowWriter(db, this.indexer);
    this.appender = new Appender(this.queries, this.rowWriter, this.transaction, checkRoom);
    this.search = new SearchIndex(db);
    this.pageSize = db.exec('PRAGMA page_size')[0].values[0][0] as number;
    this.pageCount = db.prepare('PRAGMA page_count');
  }

  /**
   * The database's size as SQLite counts it (its pages), which a checkpoint writes as the
   * snapshot. Asked on every append: a prepared statement, not an exec to parse each time.
   */
  databaseBytes(): number {
    try {
      this.pageCount.step();
      return (this.pageCount.get()[0] as number) * this.pageSize;
    } finally {
      this.pageCount.reset();
    }
  }

  /** Commits, and completes the search index with what the index worker has done: before anything reads the index or the whole database. */
  settle(): void {
    this.transaction.commit();
    this.indexer?.drainInto(this.db);
  }

  close(): void {
    this.transaction.commit();
    this.indexer?.dispose();
    this.queries.free();
    this.transaction.free();
    this.rowWriter.free();
    this.pageCount.free();
    this.db.close();
  }
}
