import type { Database, Statement } from 'sql.js';
import type { JsonObject, Kind } from '../tape/entry';
import { INSERT_ROW, type RowParams } from './rowTuple';
import { INDEX_ROW, indexText } from './search';

/**
 * Writes entry rows. A row and its full-text index entry are always written together, in the
 * caller's transaction, so a search never has to index first (an open tape is searchable at once).
 */
export class RowWriter {
  private readonly insert: Statement;
  private readonly index: Statement;

  constructor(db: Database) {
    this.insert = db.prepare(INSERT_ROW);
    this.index = db.prepare(INDEX_ROW);
  }

  /** `payload` is the parsed form of the row's payload text, which the caller already has. */
  write(row: RowParams, payload: JsonObject): void {
    this.insert.run(row);
    this.index.run([Buffer.from(indexText(row[2] as Kind, row[3] as string, payload))]);
  }

  free(): void {
    this.insert.free();
    this.index.free();
  }
}

/** Inserts rows in one transaction (journal replay, imports, followed journal records). */
export function insertRows(db: Database, rows: readonly RowParams[]): void {
  if (!rows.length) return;
  const writer = new RowWriter(db);
  db.run('BEGIN');
  try {
    for (const r of rows) writer.write(r, JSON.parse(Buffer.from(r[11] as Uint8Array).toString('utf8')) as JsonObject);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  } finally {
    writer.free();
  }
}
