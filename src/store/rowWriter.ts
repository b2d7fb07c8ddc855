import type { Database, Statement } from 'sql.js';
import type { JsonObject, Kind } from '../tape/entry';
import { INSERT_ROW, type RowParams } from './rowTuple';
import { INDEX_ROW, indexText } from './search';
import type { Defer } from './appendTransaction';
import type { ParallelIndexer } from './parallelIndex';

/** A row counted into its session's summary (schema.ts SESSIONS_TABLE); ids and times need not come in order. */
const SUMMARIZE_ROW = `INSERT INTO sessions (session_id, first_id, head_entry_id, entry_count, anchor_count, first_created_at, last_created_at)
  VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5)
  ON CONFLICT (session_id) DO UPDATE SET
    first_id = min(first_id, excluded.first_id),
    head_entry_id = max(head_entry_id, excluded.head_entry_id),
    entry_count = entry_count + 1,
    anchor_count = anchor_count + excluded.anchor_count,
    first_created_at = min(first_created_at, excluded.first_created_at),
    last_created_at = max(last_created_at, excluded.last_created_at)`;

/**
 * Writes entry rows. A row, its session's summary and its full-text index entry are always
 * written in the same transaction, so a search never has to index first (an open tape is
 * searchable at once) and listing sessions never has to read the rows.
 */
export class RowWriter {
  private readonly insert: Statement;
  private readonly summarize: Statement;
  private readonly index: Statement;
  private readonly lastRowId: Statement;

  /** With `indexer`, index entries go to its worker while it is active (parallelIndex.ts). */
  constructor(
    db: Database,
    private readonly indexer?: ParallelIndexer,
  ) {
    this.insert = db.prepare(INSERT_ROW);
    this.summarize = db.prepare(SUMMARIZE_ROW);
    this.index = db.prepare(INDEX_ROW);
    this.lastRowId = db.prepare('SELECT last_insert_rowid()');
  }

  /**
   * `payload` is the parsed form of the row's payload text, which the caller already has. With
   * `defer`, the index entry is written later in the same transaction (see AppendTransaction).
   */
  write(row: RowParams, payload: JsonObject, defer?: Defer): void {
    this.insert.run(row);
    const rowId = this.rowId();
    this.summarize.run([row[0], rowId, row[1], row[2] === 'anchor' ? 1 : 0, row[5]]);
    const indexer = this.indexer;
    if (indexer?.active) {
      // Deferred too: a unit that rolls back takes its rows out of the worker's batch as well.
      const send = (): void => indexer.add(rowId, row[2] as Kind, row[3] as string, row[11] as Uint8Array);
      if (defer) defer(send);
      else send();
      return;
    }
    // Deferred, the index text is worked out at commit too: off the path to the journal's fsync.
    const index = (): void => void this.index.run([rowId, Buffer.from(indexText(row[2] as Kind, row[3] as string, payload))]);
    if (defer) defer(index);
    else index();
  }

  /** Writes a row as stored (a journal record's, an import's): its payload is parsed for the index. */
  writeStored(row: RowParams): void {
    this.write(row, JSON.parse(Buffer.from(row[11] as Uint8Array).toString('utf8')) as JsonObject);
  }

  free(): void {
    this.insert.free();
    this.summarize.free();
    this.index.free();
    this.lastRowId.free();
  }

  private rowId(): number {
    this.lastRowId.step();
    const id = this.lastRowId.get()[0] as number;
    this.lastRowId.reset();
    return id;
  }
}

/** Inserts rows in one transaction (journal replay, imports, followed journal records). */
export function insertRows(db: Database, rows: readonly RowParams[]): void {
  if (!rows.length) return;
  const writer = new RowWriter(db);
  db.run('BEGIN');
  try {
    for (const r of rows) writer.writeStored(r);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  } finally {
    writer.free();
  }
}
