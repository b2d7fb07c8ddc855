import type { Database, SqlJsStatic } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';
import { TapeFileError } from './errors';
import { createTapeDb } from './schema';

/**
 * A tape's database may have been written by anyone, and SQLite runs what its schema says inside
 * our own statements: a view named `entries` is executed by every read (a recursive one never
 * ends), a trigger by every append, an index's expressions by every insert. So before anything but
 * `sqlite_master` is read, the schema must be exactly the one this build creates for the tape's
 * schema version: the same tables, indexes and FTS4 shadow tables with the same SQL, nothing more.
 */

/** One `sqlite_master` row, keyed by `type name`; `sql` is null for SQLite's automatic indexes. */
type Schema = Map<string, { table: string; sql: string | null }>;

/**
 * The objects each migration adds (migrations.ts): a tape of schema v has every object of a new
 * tape but those added after v. A migration that adds or changes objects must say so here.
 */
const ADDED_IN_VERSION: Readonly<Record<string, number>> = {
  'index entries_by_tool_call': 2,
  'index entries_by_link': 3,
  'table sessions': 3,
  'index sqlite_autoindex_sessions_1': 3,
};

function schemaOf(db: Database): Schema {
  const rows = db.exec('SELECT type, name, tbl_name, sql FROM sqlite_master')[0]?.values ?? [];
  return new Map(rows.map(([type, name, table, sql]) => [`${String(type)} ${String(name)}`, { table: String(table), sql: sql === null ? null : String(sql) }]));
}

let created: Schema | undefined;

/** The schema of a tape of `version`, from a database made as a new tape is (createTapeDb). */
function expectedSchema(SQL: SqlJsStatic, version: number): Schema {
  if (!created) {
    const db = createTapeDb(SQL);
    try {
      created = schemaOf(db);
    } finally {
      db.close();
    }
  }
  return new Map([...created].filter(([key]) => (ADDED_IN_VERSION[key] ?? 1) <= version));
}

/** What the database holds, read from `sqlite_master` alone; checked with checkTapeMeta, then checkSchema. */
export class StoredSchema {
  private constructor(private readonly found: Schema) {}

  static read(db: Database, file: string): StoredSchema {
    try {
      return new StoredSchema(schemaOf(db));
    } catch (e) {
      throw new TapeFileError(file, `is corrupt or not a tape: its schema cannot be read (${errorMessage(e)})`);
    }
  }

  /**
   * Whether `tape_meta` is there, and exactly as a new tape has it, so that reading it (its schema
   * version says which schema the rest must match) runs nothing else.
   */
  hasTapeMeta(SQL: SqlJsStatic): boolean {
    const ours = expectedSchema(SQL, 1).get('table tape_meta');
    const theirs = this.found.get('table tape_meta');
    return theirs !== undefined && theirs.sql === ours?.sql && theirs.table === ours.table;
  }

  /** Refuses a schema that is not exactly that of a tape of `version`, naming what differs. */
  check(SQL: SqlJsStatic, version: number, file: string): void {
    const expected = expectedSchema(SQL, version);
    const problems: string[] = [];
    for (const [key, theirs] of this.found) {
      const ours = expected.get(key);
      if (ours === undefined) problems.push(`an extra ${key.replace(' ', ' "')}"`);
      else if (ours.sql !== theirs.sql || ours.table !== theirs.table)
        problems.push(`a changed ${key.replace(' ', ' "')}" (${JSON.stringify((theirs.sql ?? '').slice(0, 200))})`);
    }
    for (const key of expected.keys()) if (!this.found.has(key)) problems.push(`no ${key.replace(' ', ' "')}"`);
    if (!problems.length) return;
    const shown = problems.length > 8 ? [...problems.slice(0, 8), `${problems.length - 8} more`] : problems;
    throw new TapeFileError(
      file,
      `has a schema that Agent Tape does not create (schema ${version}): ${shown.join(', ')}; refusing to open it, as SQLite would run its views, triggers and indexes inside Agent Tape's own reads and writes`,
    );
  }
}
