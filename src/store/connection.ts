import type { Database } from 'sql.js';
import { Appender } from './appender';
import { TapeQueries } from './queries';
import { RowWriter } from './rowWriter';
import { SearchIndex } from './search';
import { AppendTransaction } from './appendTransaction';

/** The parts of a store that read or write its database; a read-only store's reload replaces them. */
export class Connection {
  readonly queries: TapeQueries;
  readonly transaction: AppendTransaction;
  readonly rowWriter: RowWriter;
  readonly appender: Appender;
  readonly search: SearchIndex;

  /** `file` names the tape in errors about what its database holds. */
  constructor(
    readonly db: Database,
    file: string,
    onCommitFailure: (e: unknown) => void,
  ) {
    this.queries = new TapeQueries(db, file);
    this.transaction = new AppendTransaction(db, onCommitFailure);
    this.rowWriter = new RowWriter(db);
    this.appender = new Appender(this.queries, this.rowWriter, this.transaction);
    this.search = new SearchIndex(db, file);
  }

  close(): void {
    this.transaction.commit();
    this.queries.free();
    this.transaction.free();
    this.rowWriter.free();
    this.db.close();
  }
}
