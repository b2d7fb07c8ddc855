import type { Database, SqlValue } from 'sql.js';
import type { JsonObject, Kind } from '../tape/entry';
import { errorMessage } from '../tape/errorMessage';
import type { RankedMatch, SearchMatch } from '../tape/search/sessionSearch';
import { spaceOut, unspace } from './cjk';
import { entryText } from '../tape/entryText';
import { readVarint } from './ftsVarint';
import { TapeQueryError } from './errors';
import { objectOf } from './queries';

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
  /** BM25; higher is better. */
  score: number;
  snippet: string;
}

interface ParsedQuery {
  match: string;
  /** Normalised terms and phrases (CJK without the index's spaces), for the snippet. */
  terms: string[];
}

const OPERATOR = /^(AND|OR|NOT|NEAR(\/\d+)?)$/;

/**
 * Turns a user query (FTS4 syntax: words, "phrases", prefix*, AND/OR/NOT/NEAR, parentheses) into a
 * MATCH expression over the spaced-out index text. Every word or phrase is normalised like the
 * index; one that spans several tokens (CJK, or punctuation inside) becomes a phrase.
 */
export function parseQuery(query: string): ParsedQuery {
  const parts: string[] = [];
  const terms: string[] = [];
  let depth = 0;
  const term = (raw: string, prefix: boolean): void => {
    const tokens = spaceOut(raw)
      .split(/[\s\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/)
      .filter(Boolean);
    if (!tokens.length) return;
    terms.push(unspace(spaceOut(raw)));
    const star = prefix ? '*' : '';
    parts.push(tokens.length === 1 ? `${tokens[0]}${star}` : `"${tokens.join(' ')}${star}"`);
  };
  const re = /\s*(?:(")|(\()|(\))|([^\s"()]+))/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(query)) !== null && m[0].length) {
    if (m[1]) {
      const close = query.indexOf('"', re.lastIndex);
      if (close < 0) throw new TapeQueryError(`unterminated quote in ${JSON.stringify(query)}`);
      const prefix = query[close + 1] === '*';
      term(query.slice(re.lastIndex, close), prefix);
      re.lastIndex = close + 1 + (prefix ? 1 : 0);
    } else if (m[2]) {
      depth++;
      parts.push('(');
    } else if (m[3]) {
      if (--depth < 0) throw new TapeQueryError(`unbalanced ")" in ${JSON.stringify(query)}`);
      parts.push(')');
    } else if (OPERATOR.test(m[4])) {
      parts.push(m[4]);
    } else {
      const prefix = m[4].length > 1 && m[4].endsWith('*');
      term(prefix ? m[4].slice(0, -1) : m[4], prefix);
    }
  }
  if (depth) throw new TapeQueryError(`unbalanced "(" in ${JSON.stringify(query)}`);
  if (!terms.length) throw new TapeQueryError(`${JSON.stringify(query)} has no words to search for`);
  return { match: parts.join(' '), terms };
}

/** What FTS4's simple tokenizer cuts at, as `parseQuery` cuts a word: ASCII spaces and punctuation. */
const SEPARATORS = /[\s\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/;

/**
 * Plain text (Search All Sessions: nothing in it is an operator) as a MATCH expression: each
 * whitespace-separated word a quoted token, or a phrase of its tokens when it spans several (CJK,
 * punctuation inside); with `prefix`, the last one also matches the tokens it begins. Null when
 * the text has no words.
 */
export function plainQuery(text: string, prefix: boolean): string | null {
  const words = text
    .split(/\s+/)
    .map((w) => spaceOut(w).split(SEPARATORS).filter(Boolean))
    .filter((tokens) => tokens.length > 0);
  if (words.length === 0) return null;
  return words.map((tokens, i) => `"${tokens.join(' ')}${prefix && i === words.length - 1 ? '*' : ''}"`).join(' ');
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

/** A window of the entry's own text around the first hit, hits marked «like this». */
export function snippetOf(text: string, terms: readonly string[], width = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.normalize('NFKC').toLowerCase();
  // NFKC can change lengths; then positions are only meaningful in the normalised text.
  const shown = lower.length === flat.length ? flat : lower;
  let at = -1;
  let hit = '';
  for (const t of terms) {
    const i = lower.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) [at, hit] = [i, t];
  }
  if (at < 0) return shown.length > width ? `${shown.slice(0, width)}…` : shown;
  const start = Math.max(0, at - Math.floor(width / 3));
  const end = Math.min(shown.length, Math.max(at + hit.length, start + width));
  return `${start > 0 ? '…' : ''}${shown.slice(start, at)}«${shown.slice(at, at + hit.length)}»${shown.slice(at + hit.length, end)}${end < shown.length ? '…' : ''}`;
}

/**
 * The index statement of the write path (rowWriter.ts): docid is the row's id. The text may be
 * bound as UTF-8 bytes, which sql.js copies in one go (see RowParams).
 */
export const INDEX_ROW = 'INSERT INTO entries_fts (docid, text) VALUES (?, CAST(? AS TEXT))';

/** What the index holds for an entry: its text with CJK characters spaced out into tokens. */
export const indexText = (kind: Kind, name: string, payload: JsonObject): string => spaceOut(entryText(kind, name, payload));

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

/** A ranked match: the entries row id and its BM25 score. */
type Ranked = [id: number, score: number];

/** Best first; equal scores in append order. */
const byRank = (a: Ranked, b: Ranked): number => b[1] - a[1] || a[0] - b[0];

/**
 * The best `limit` of a stream of matches, in O(n log limit): matches collect until there are
 * twice `limit`, then the worse half goes, and anything worse than what is kept is skipped.
 */
class BestOf {
  private kept: Ranked[] = [];
  private floor = -Infinity;

  constructor(private readonly limit: number) {}

  offer(id: number, score: number): void {
    if (score < this.floor) return;
    this.kept.push([id, score]);
    if (this.kept.length >= 2 * this.limit) this.trim();
  }

  best(): Ranked[] {
    this.trim();
    return this.kept;
  }

  private trim(): void {
    this.kept.sort(byRank);
    if (this.kept.length < this.limit) return;
    this.kept.length = this.limit;
    this.floor = this.kept[this.limit - 1][1];
  }
}

/** Full-text search over a tape database; rows are indexed as they are written (rowWriter.ts). */
export class SearchIndex {
  /** `file` names the tape when a stored payload is not JSON (a database someone else wrote). */
  constructor(
    private readonly db: Database,
    private readonly file = '<memory>',
  ) {}

  private stats(): CorpusStats {
    return corpusStatsOf(this.db.exec('SELECT value FROM entries_fts_stat WHERE id = 0')[0]?.values[0][0]);
  }

  /**
   * Every entry whose indexed text holds all the words of `text` (plain text, see `plainQuery`):
   * its row id and BM25 score, in no order. Reads the index only (its doclists and row sizes), not
   * `entries`: a common word matches most of a tape, whose rows may be gigabytes.
   */
  rankedMatches(text: string, prefix: boolean): RankedMatch[] {
    const match = plainQuery(text, prefix);
    if (match === null) return [];
    const out: RankedMatch[] = [];
    try {
      const stats = this.stats();
      const s = this.db.prepare(
        `SELECT entries_fts.docid, CAST(matchinfo(entries_fts, 'pcx') || ifnull(d.size, x'') AS BLOB) FROM entries_fts LEFT JOIN entries_fts_docsize d ON d.docid = entries_fts.docid WHERE entries_fts MATCH ?`,
        [match],
      );
      try {
        while (s.step()) {
          const [id, info] = s.get() as [number, Uint8Array];
          out.push({ id, score: bm25(info, stats) });
        }
      } finally {
        s.free();
      }
    } catch (e) {
      throw new TapeQueryError(`${JSON.stringify(text)}: ${errorMessage(e)}`);
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
        return [{ sessionId, entryId, kind, name, messageId, createdAt, score } as SearchMatch];
      });
    } finally {
      s.free();
    }
  }

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const { match, terms } = parseQuery(query);
    const limit = opts.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1) throw new TapeQueryError(`limit must be a positive integer, got ${limit}`);
    const where = ['entries_fts MATCH ?'];
    const params: SqlValue[] = [match];
    const add = (cond: string, ...values: SqlValue[]): void => {
      where.push(cond);
      params.push(...values);
    };
    if (opts.sessionId !== undefined) add('e.session_id = ?', opts.sessionId);
    if (opts.kinds?.length) add(`e.kind IN (${opts.kinds.map(() => '?').join(',')})`, ...opts.kinds);
    if (opts.fromEntryId !== undefined) add('e.entry_id >= ?', opts.fromEntryId);
    if (opts.toEntryId !== undefined) add('e.entry_id <= ?', opts.toEntryId);
    if (opts.fromTime !== undefined) add('e.created_at >= ?', opts.fromTime);
    if (opts.toTime !== undefined) add('e.created_at <= ?', opts.toTime);
    // Scored here, not by a JS function called from SQL in ORDER BY: a common word matches most
    // rows, and that call per row plus SQLite's sort took 1.3 to 1.9 times as long as this loop
    // (68k of 100k rows, first and warm search). Only the best rows are read from entries in full.
    // CROSS JOIN keeps the index as the outer loop: with a plain JOIN, SQLite walks a session's
    // rows through entries_by_session and evaluates the MATCH once per row (43 s instead of
    // milliseconds for one session of a 100k-entry tape).
    // The row's length comes from the index's own docsize table by a join, not from matchinfo's
    // 'l', which runs a statement of its own for every matching row: for a word in 68k of 100k
    // rows that was 40% of the search (pcnalx 230 ms cold, 114 warm; pcx and the join 137, 51).
    // Both blobs come as one, so each row is one blob read by sql.js.
    const join = `${where.length > 1 ? 'CROSS JOIN entries e ON e.id = entries_fts.docid ' : ''}LEFT JOIN entries_fts_docsize d ON d.docid = entries_fts.docid`;
    const best = new BestOf(limit);
    const rows: SqlValue[][] = [];
    try {
      const stats = this.stats();
      const matches = this.db.prepare(
        `SELECT entries_fts.docid, CAST(matchinfo(entries_fts, 'pcx') || ifnull(d.size, x'') AS BLOB) FROM entries_fts ${join} WHERE ${where.join(' AND ')}`,
        params,
      );
      try {
        while (matches.step()) {
          const [id, info] = matches.get() as [number, Uint8Array];
          best.offer(id, bm25(info, stats));
        }
      } finally {
        matches.free();
      }
      const entry = this.db.prepare('SELECT session_id, entry_id, kind, name, payload FROM entries WHERE id = ?');
      try {
        for (const [id, score] of best.best()) rows.push([...entry.get([id]), score]);
      } finally {
        entry.free();
      }
    } catch (e) {
      throw new TapeQueryError(`${JSON.stringify(query)}: ${errorMessage(e)}`);
    }
    return rows.map(([sessionId, entryId, kind, name, payload, score]) => ({
      sessionId: sessionId as string,
      entryId: entryId as number,
      kind: kind as Kind,
      name: name as string,
      score: Math.round((score as number) * 1e4) / 1e4,
      snippet: snippetOf(
        entryText(kind as Kind, name as string, objectOf(payload as string, 'payload', sessionId as string, entryId as number, this.file)),
        terms,
      ),
    }));
  }
}
