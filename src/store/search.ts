import type { Database, SqlValue } from 'sql.js';
import type { JsonObject, Kind } from '../tape/entry';
import { errorMessage } from '../tape/errorMessage';
import { searchEntries, type MatchFilter, type SearchMatch, type SearchSource } from '../tape/search/entrySearch';
import { RankedMatches, type RankedMatch } from '../tape/search/rankedMatches';
import { parseQuery, SearchQueryError, type SearchQuery } from '../tape/search/searchQuery';
import { markedText } from '../tape/search/searchSnippet';
import { normalForm } from '../tape/search/searchTokens';
import { entryText } from '../tape/entryText';
import { readVarint } from './ftsVarint';
import { TapeQueryError } from './errors';

export interface SearchOptions {
  sessionId?: string;
  kinds?: readonly Kind[];
  /** Inclusive bounds on the entry id, with a `sessionId` (a fork reads its parent up to its fork point). */
  fromEntryId?: number;
  toEntryId?: number;
  /** Inclusive bounds on `createdAt` (ms since epoch). */
  fromTime?: number;
  toTime?: number;
  /** Default 20. */
  limit?: number;
}

export interface SearchHit {
  sessionId: string;
  entryId: number;
  kind: Kind;
  name: string;
  /** BM25, times the phrase bonus (entrySearch.ts); higher is better. */
  score: number;
  /** The one snippet rule's, hits marked «like this». */
  snippet: string;
  /** Orders equal scores (`byRank`) when hits of several searches merge. */
  rowId: number;
}

const K1 = 1.2;
const B = 0.75;

/** The corpus figures BM25 needs, as matchinfo's 'n' and 'a' give them (the average rounded). */
export interface CorpusStats {
  rows: number;
  avgLen: number;
}

/**
 * From the index's own statistics row (id 0 of `entries_fts_stat`: row count, then tokens per
 * column); anything but a blob (a damaged file) gives no figures rather than an error.
 */
export function corpusStatsOf(stat: unknown): CorpusStats {
  if (!(stat instanceof Uint8Array)) return { rows: 0, avgLen: 1 };
  const [rows, next] = readVarint(stat, 0);
  const [tokens] = readVarint(stat, next);
  return { rows, avgLen: rows ? Math.floor((tokens + Math.floor(rows / 2)) / rows) || 1 : 1 };
}

/**
 * Okapi BM25 (FTS4 has no built-in ranking), the same figure as from matchinfo('pcnalx'), from
 * matchinfo('pcx') followed by the row's `entries_fts_docsize` blob. Layout with one column: p, c,
 * then per phrase (hits here, hits everywhere, rows with a hit), then the row's length in tokens
 * as a varint; a row without one counts as average.
 */
export function bm25(matchinfo: Uint8Array, stats: CorpusStats): number {
  // Read by hand, not through a DataView: a common word scores most rows, one allocation each.
  const u = (i: number): number => (matchinfo[i * 4] | (matchinfo[i * 4 + 1] << 8) | (matchinfo[i * 4 + 2] << 16) | (matchinfo[i * 4 + 3] << 24)) >>> 0;
  const phrases = u(0);
  const at = (2 + phrases * 3) * 4;
  // Lengths below 16,384 (two bytes) are read inline: a varint call per row was 5% of a search.
  const b0 = matchinfo[at];
  const b1 = matchinfo[at + 1];
  const len = at >= matchinfo.length ? stats.avgLen : b0 < 0x80 ? b0 : b1 < 0x80 ? (b0 & 0x7f) | (b1 << 7) : readVarint(matchinfo, at)[0];
  const norm = K1 * (1 - B + (B * len) / stats.avgLen);
  let score = 0;
  for (let i = 0; i < phrases; i++) {
    const tf = u(2 + i * 3);
    if (!tf) continue;
    const rowsWithHit = u(2 + i * 3 + 2);
    const idf = Math.log((stats.rows - rowsWithHit + 0.5) / (rowsWithHit + 0.5) + 1);
    score += (idf * tf * (K1 + 1)) / (tf + norm);
  }
  return score;
}

/**
 * The index statement of the write path (rowWriter.ts): docid is the row's id. The text may be
 * bound as UTF-8 bytes, which sql.js copies in one go (see RowParams).
 */
export const INDEX_ROW = 'INSERT INTO entries_fts (docid, text) VALUES (?, CAST(? AS TEXT))';

/** What the index holds for an entry: its text in the one tokenizer's normal form (searchTokens.ts). */
export const indexText = (kind: Kind, name: string, payload: JsonObject): string => normalForm(entryText(kind, name, payload));

/** Indexes every row after `afterId` (rowid order), as appends do one by one. */
export function indexRowsAfter(db: Database, afterId: number): void {
  const select = db.prepare('SELECT id, kind, name, payload FROM entries WHERE id > ? ORDER BY id', [afterId]);
  const index = db.prepare(INDEX_ROW);
  try {
    while (select.step()) {
      const [id, kind, name, payload] = select.get() as [number, Kind, string, string];
      index.run([id, indexText(kind, name, JSON.parse(payload) as JsonObject)]);
    }
  } finally {
    select.free();
    index.free();
  }
}

/** Full-text search over a tape database; rows are indexed as they are written (rowWriter.ts). */
export class SearchIndex {
  constructor(private readonly db: Database) {}

  private stats(): CorpusStats {
    return corpusStatsOf(this.db.exec('SELECT value FROM entries_fts_stat WHERE id = 0')[0]?.values[0][0]);
  }

  /**
   * Every entry in the filter whose indexed text matches the query: its row id and BM25 score, in
   * no order. Reads the index only (its doclists and row sizes), and `entries`' leading columns
   * when filtered, never a payload: a common word matches most of a tape, whose rows may be gigabytes.
   */
  rankedMatches(query: SearchQuery, filter: MatchFilter): RankedMatches {
    const where = ['entries_fts MATCH ?'];
    const params: SqlValue[] = [query.match];
    const add = (cond: string, ...values: SqlValue[]): void => {
      where.push(cond);
      params.push(...values);
    };
    if (filter.sessionId !== undefined) add('e.session_id = ?', filter.sessionId);
    if (filter.kinds?.length) add(`e.kind IN (${filter.kinds.map(() => '?').join(',')})`, ...filter.kinds);
    if (filter.fromEntryId !== undefined) add('e.entry_id >= ?', filter.fromEntryId);
    if (filter.toEntryId !== undefined) add('e.entry_id <= ?', filter.toEntryId);
    if (filter.fromTime !== undefined) add('e.created_at >= ?', filter.fromTime);
    if (filter.toTime !== undefined) add('e.created_at <= ?', filter.toTime);
    // Scored here, not by a JS function called from SQL in ORDER BY: a common word matches most
    // rows, and that call per row plus SQLite's sort took 1.3 to 1.9 times as long as this loop
    // (68k of 100k rows, first and warm search).
    // CROSS JOIN keeps the index as the outer loop: with a plain JOIN, SQLite walks a session's
    // rows through entries_by_session and evaluates the MATCH once per row (43 s instead of
    // milliseconds for one session of a 100k-entry tape).
    // The row's length comes from the index's own docsize table by a join, not from matchinfo's
    // 'l', which runs a statement of its own for every matching row: for a word in 68k of 100k
    // rows that was 40% of the search (pcnalx 230 ms cold, 114 warm; pcx and the join 137, 51).
    // Both blobs come as one, so each row is one blob read by sql.js.
    const join = `${where.length > 1 ? 'CROSS JOIN entries e ON e.id = entries_fts.docid ' : ''}LEFT JOIN entries_fts_docsize d ON d.docid = entries_fts.docid`;
    const out = new RankedMatches();
    try {
      const stats = this.stats();
      const s = this.db.prepare(
        `SELECT entries_fts.docid, CAST(matchinfo(entries_fts, 'pcx') || ifnull(d.size, x'') AS BLOB) FROM entries_fts ${join} WHERE ${where.join(' AND ')}`,
        params,
      );
      try {
        while (s.step()) {
          const [id, info] = s.get() as [number, Uint8Array];
          out.push(id, bm25(info, stats));
        }
      } finally {
        s.free();
      }
    } catch (e) {
      throw new TapeQueryError(`${JSON.stringify(query.text)}: ${errorMessage(e)}`);
    }
    return out;
  }

  /** What judging needs of these matches' rows (their leading columns, not the payload), in the order given. */
  matchRows(matches: readonly RankedMatch[]): SearchMatch[] {
    const s = this.db.prepare('SELECT session_id, entry_id, kind, name, message_id, created_at FROM entries WHERE id = ?');
    try {
      return matches.flatMap(({ id, score }) => {
        const row = s.get([id]);
        if (row.length === 0) return [];
        const [sessionId, entryId, kind, name, messageId, createdAt] = row;
        return [{ rowId: id, sessionId, entryId, kind, name, messageId, createdAt, score } as SearchMatch];
      });
    } finally {
      s.free();
    }
  }
}

/**
 * `search`, `tape_search` and the inspector's filter: the one engine (src/tape/search/entrySearch.ts)
 * over every row in the scope, the query in the `operators` syntax, each hit's snippet marked «like this».
 */
export function searchHits(source: SearchSource, query: string, opts: SearchOptions = {}): SearchHit[] {
  const limit = opts.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) throw new TapeQueryError(`limit must be a positive integer, got ${limit}`);
  let parsed: SearchQuery | null;
  try {
    parsed = parseQuery(query, 'operators');
  } catch (e) {
    if (e instanceof SearchQueryError) throw new TapeQueryError(e.message);
    throw e;
  }
  if (parsed === null) throw new TapeQueryError(`${JSON.stringify(query)} has no words to search for`);
  const { sessionId, kinds, fromEntryId, toEntryId, fromTime, toTime } = opts;
  return searchEntries(source, parsed, { sessionId, kinds, fromEntryId, toEntryId, fromTime, toTime, limit }).hits.map((h) => ({
    sessionId: h.sessionId,
    entryId: h.entryId,
    kind: h.kind,
    name: h.name,
    score: h.score,
    snippet: markedText(h.snippet),
    rowId: h.rowId,
  }));
}
