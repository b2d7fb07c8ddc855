import type { Database, SqlValue } from 'sql.js';
import { readVarint, varintBytes } from './ftsVarint';
import { FTS_TABLE } from './schema';

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
 */
export interface IndexSegments {
  /** %_segments: block ids and blocks (null: a block an incremental merge reserved). */
  blocks: [blockId: number, block: Uint8Array | null][];
  /** %_segdir, oldest segment first: level, idx, start_block, leaves_end_block, end_block ("<id> <bytes>" as text when FTS4 counts the leaf bytes), root. */
  segments: [level: number, idx: number, start: number, leavesEnd: number, end: number | string, root: Uint8Array][];
  /** %_docsize: the rows' ids and their token counts (varint blobs) back to back, `sizeEnds[i]` ending row i's. */
  docIds: Float64Array;
  sizes: Uint8Array;
  sizeEnds: Uint32Array;
  /** %_stat row 0: rows, then tokens per column (varints); null for an empty index. */
  totals: Uint8Array | null;
}

const rowsOf = (db: Database, sql: string): SqlValue[][] => db.exec(sql)[0]?.values ?? [];

/** The index's segments, taken out of `db` (a database of just the index, as the worker's): its index starts empty again. */
export function takeIndexSegments(db: Database): IndexSegments {
  const blocks = rowsOf(db, 'SELECT blockid, block FROM entries_fts_segments ORDER BY blockid') as IndexSegments['blocks'];
  // Oldest first, as FTS4 itself reads them (segments at higher levels are older).
  const segments = rowsOf(
    db,
    'SELECT level, idx, start_block, leaves_end_block, end_block, root FROM entries_fts_segdir ORDER BY level DESC, idx ASC',
  ) as IndexSegments['segments'];
  const sizes = rowsOf(db, 'SELECT docid, size FROM entries_fts_docsize ORDER BY docid') as [number, Uint8Array][];
  const totals = (rowsOf(db, 'SELECT value FROM entries_fts_stat WHERE id = 0')[0]?.[0] ?? null) as Uint8Array | null;
  db.run(`DROP TABLE entries_fts; ${FTS_TABLE}`);
  const sizeEnds = new Uint32Array(sizes.length);
  let bytes = 0;
  sizes.forEach(([, size], i) => (sizeEnds[i] = bytes += size.length));
  const packed = new Uint8Array(bytes);
  sizes.forEach(([, size], i) => packed.set(size, sizeEnds[i] - size.length));
  return { blocks, segments, docIds: Float64Array.from(sizes, ([id]) => id), sizes: packed, sizeEnds, totals };
}

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
function shiftEnd(end: number | string, offset: number): number | string {
  if (typeof end === 'number') return end + offset;
  const [id, bytes] = end.split(' ');
  return `${Number(id) + offset} ${bytes}`;
}

/** Element-wise sum of two %_stat totals (rows, then tokens per column). */
function addTotals(a: Uint8Array | null, b: Uint8Array): Uint8Array {
  const values = (blob: Uint8Array | null): number[] => {
    const out: number[] = [];
    for (let at = 0; blob && at < blob.length;) {
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
 * Adds segments built elsewhere to `db`'s index, inside the caller's transaction. The rows must
 * be new to the index (see above). Where a level now holds a full level's worth of segments, it
 * is merged as FTS4 would have done when writing them itself, so searches keep reading few
 * segments.
 */
export function adoptIndexSegments(db: Database, s: IndexSegments): void {
  if (!s.segments.length && !s.docIds.length) return;
  const offset = rowsOf(db, 'SELECT coalesce(max(blockid), 0) FROM entries_fts_segments')[0][0] as number;
  const putBlock = db.prepare('INSERT INTO entries_fts_segments (blockid, block) VALUES (?, ?)');
  const nextIdx = db.prepare('SELECT coalesce(max(idx) + 1, 0) FROM entries_fts_segdir WHERE level = ?');
  const putSegment = db.prepare('INSERT INTO entries_fts_segdir (level, idx, start_block, leaves_end_block, end_block, root) VALUES (?, ?, ?, ?, ?, ?)');
  const putSize = db.prepare('INSERT INTO entries_fts_docsize (docid, size) VALUES (?, ?)');
  try {
    for (const [id, block] of s.blocks) putBlock.run([id + offset, block && shiftNode(block, offset)]);
    let fullest = 0;
    for (const [level, , start, leavesEnd, end, root] of s.segments) {
      const idx = nextIdx.get([level])[0] as number;
      nextIdx.reset();
      fullest = Math.max(fullest, idx + 1);
      // A segment small enough to live in its root alone has no blocks: its ids are all 0.
      const moved = start === 0 ? [start, leavesEnd, end] : [start + offset, leavesEnd + offset, shiftEnd(end, offset)];
      putSegment.run([level, idx, ...moved, shiftNode(root, offset)]);
    }
    let from = 0;
    s.docIds.forEach((id, i) => {
      putSize.run([id, s.sizes.subarray(from, s.sizeEnds[i])]);
      from = s.sizeEnds[i];
    });
    if (s.totals) {
      const current = rowsOf(db, 'SELECT value FROM entries_fts_stat WHERE id = 0')[0]?.[0];
      db.run('INSERT INTO entries_fts_stat (id, value) VALUES (0, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value', [
        addTotals(current instanceof Uint8Array ? current : null, s.totals),
      ]);
    }
    if (fullest >= MERGE_COUNT) db.run(`INSERT INTO entries_fts (entries_fts) VALUES ('merge=1000000,${MERGE_COUNT}')`);
  } finally {
    putBlock.free();
    nextIdx.free();
    putSegment.free();
    putSize.free();
  }
}
