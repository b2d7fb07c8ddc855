import type { Database } from 'sql.js';
import { indexRowsAfter } from './search';
import { FTS_TABLE, tuneSearchIndex } from './schema';

/**
 * Removes a session's rows from the database for good (the one physical delete: a lifecycle
 * operation for privacy and disk, never part of the tape's semantics). Deleted content must not
 * linger: `secure_delete` zeroes the freed cells, the contentless search index (which cannot drop
 * single documents and would keep the session's words) is rebuilt from the remaining rows, and
 * VACUUM leaves no free pages. Returns how many entries were removed.
 */
export function deleteSessionRows(db: Database, sessionId: string): number {
  db.run('PRAGMA secure_delete = ON');
  try {
    db.run('BEGIN');
    try {
      db.run('DELETE FROM entries WHERE session_id = ?', [sessionId]);
      const removed = db.getRowsModified();
      db.run('DELETE FROM sessions WHERE session_id = ?', [sessionId]);
      db.run('DROP TABLE entries_fts');
      db.run(FTS_TABLE);
      indexRowsAfter(db, 0);
      db.run('COMMIT');
      db.run('VACUUM');
      tuneSearchIndex(db); // the new index's own setting
      return removed;
    } catch (e) {
      db.run('ROLLBACK');
      throw e;
    }
  } finally {
    db.run('PRAGMA secure_delete = OFF');
  }
}
