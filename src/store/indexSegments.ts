import type { Database, SqlValue } from 'sql.js';
import { readVarint, varintBytes } from './ftsVarint';
import { loadedSqlJs } from './sqljs';

/**
 * The search index of some rows, built in another database (the index worker's, indexWorker.ts)
 * and moved into the tape's: FTS4's shadow tables hold the index as self-contained b-tree
 * segments (https://sqlite.org/fts3.html#data_structures), so a segment built elsewhere can be
 * added to an index as it is, with its block ids renumbered. Two facts make that exact:
 * - Every docid (the entries row id) is indexed once, in one segment: rows are appended, never
 *   updated, and deleting a session rebuilds the whole index (sessionDelete.ts). Segments with
 *   disjoint docids answer a query the same whatever their order, so where a moved segment goes
 *   among the others (its level and idx, which only schedule FTS4's merges) changes no result.
 * - A segment refers to other rows only by block id: its %_segdir row names its first leaf, last
 *   leaf and last block, and each interior node starts with its height and its leftmost child's
 *   block id (leaves, height 0, hold only terms and doclists of docids). Shifting those by one
 *   offset keeps the segment whole.
 *
 * The index travels as the image of a database holding only `entries_fts` (as the worker's does):
 * attached here, its rows are copied by SQLite itself, not one statement per row from JS.
 */

const scalar = (db: Database, sql: string, params: SqlValue[] = []): SqlValue => db.exec(sql, params)[0]?.values[0]?.[0] ?? null;

/** A node with its leftmost child's block id moved by `offset`; a leaf (height 0) as it is. */
function shiftNode(node: Uint8Array, offset: number): Uint8Array {
  const [height, childAt] = readVarint(node, 0);
  if (height === 0) return node;
  const [child, rest] = readVarint(node, childAt);
  const head = [...varintBytes(height), ...varintBytes(child + offset)];
  const out = new Uint8Array(head.length + node.length - rest);
  out.set(head);
  out.set(node.subarray(rest), head.length);
  return out;
}

/** `end_block`, a block id or "<block id> <leaf bytes>", moved by `offset`. */
function shiftEnd(end: SqlValue, offset: number): SqlValue {
  if (typeof end === 'number') return end + offset;
  const [id, bytes] = String(end).split(' ');
  return `${Number(id) + offset} ${bytes}`;
}

/** Element-wise sum of two %_stat totals (rows, then tokens per column). */
function addTotals(a: SqlValue, b: SqlValue): Uint8Array {
  const values = (blob: SqlValue): number[] => {
    const out: number[] = [];
    for (let at = 0; blob instanceof Uint8Array && at < blob.length;) {
      const [v, next] = readVarint(blob, at);
      out.push(v);
      at = next;
    }
    return out;
  };
  const [x, y] = [values(a), values(b)];
  return Uint8Array.from(Array.from({ length: Math.max(x.length, y.length) }, (_, i) => (x[i] ?? 0) + (y[i] ?? 0)).flatMap(varintBytes));
}

/** FTS4 merges a level once it holds this many segments (FTS3_MERGE_COUNT). */
const MERGE_COUNT = 16;

/**
 * Adds the index in `image` (a database of just `entries_fts`) to `db`'s, in one transaction of
 * its own (call it with none open). The rows must be new to the index (see above). Where a level
 * now holds a full level's worth of segments it is merged, as FTS4 would have done writing them
 * itself, so searches keep reading few segments.
 */
export function adoptIndex(db: Database, image: Uint8Array): void {
  const source = new (loadedSqlJs().Database)(image);
  // sql.js keeps each database as a file of its in-memory file system, named here.
  const file = (source as unknown as { filename?: unknown }).filename;
  try {
    if (typeof file !== 'string') throw new Error('sql.js names no file for a database: the search index cannot be moved');
    db.run('ATTACH ? AS built', [`/${file}`]);
    try {
      db.run('BEGIN');
      try {
        copy(db);
        db.run('COMMIT');
      } catch (e) {
        db.run('ROLLBACK');
        throw e;
      }
    } finally {
      db.run('DETACH built');
    }
  } finally {
    source.close();
  }
}

function copy(db: Database): void {
  const offset = scalar(db, 'SELECT coalesce(max(blockid), 0) FROM main.entries_fts_segments') as number;
  db.run('INSERT INTO main.entries_fts_segments (blockid, block) SELECT blockid + ?, block FROM built.entries_fts_segments', [offset]);
  // Interior nodes (a first byte, the height, other than 0) point at blocks: only they change.
  const interior = db.exec("SELECT blockid, block FROM built.entries_fts_segments WHERE block IS NOT NULL AND substr(block, 1, 1) <> x'00'")[0]?.values ?? [];
  for (const [id, block] of interior)
    db.run('UPDATE main.entries_fts_segments SET block = ? WHERE blockid = ?', [shiftNode(block as Uint8Array, offset), (id as number) + offset]);
  // Oldest first, as FTS4 itself reads them (segments at higher levels are older).
  const segments =
    db.exec('SELECT level, start_block, leaves_end_block, end_block, root FROM built.entries_fts_segdir ORDER BY level DESC, idx ASC')[0]?.values ?? [];
  let fullest = 0;
  for (const [level, start, leavesEnd, end, root] of segments) {
    const idx = scalar(db, 'SELECT coalesce(max(idx) + 1, 0) FROM main.entries_fts_segdir WHERE level = ?', [level]) as number;
    fullest = Math.max(fullest, idx + 1);
    // A segment small enough to live in its root alone has no blocks: its ids are all 0.
    const moved = start === 0 ? [start, leavesEnd, end] : [(start as number) + offset, (leavesEnd as number) + offset, shiftEnd(end, offset)];
    db.run('INSERT INTO main.entries_fts_segdir (level, idx, start_block, leaves_end_block, end_block, root) VALUES (?, ?, ?, ?, ?, ?)', [
      level,
      idx,
      ...moved,
      shiftNode(root as Uint8Array, offset),
    ]);
  }
  db.run('INSERT INTO main.entries_fts_docsize (docid, size) SELECT docid, size FROM built.entries_fts_docsize');
  const totals = scalar(db, 'SELECT value FROM built.entries_fts_stat WHERE id = 0');
  if (totals instanceof Uint8Array) {
    const current = scalar(db, 'SELECT value FROM main.entries_fts_stat WHERE id = 0');
    db.run('INSERT INTO main.entries_fts_stat (id, value) VALUES (0, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value', [addTotals(current, totals)]);
  }
  if (fullest >= MERGE_COUNT) db.run(`INSERT INTO main.entries_fts (entries_fts) VALUES ('merge=1000000,${MERGE_COUNT}')`);
}
