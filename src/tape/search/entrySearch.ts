import type { Entry, Kind } from '../entry';
import { foldAll, type FoldRow } from '../fold';
import { isSearchable, searchableText } from './searchableText';
import type { SearchQuery } from './searchQuery';
import type { RankedMatch, RankedMatches } from './rankedMatches';
import { hasPhrase, hitRanges, snippetOf, type Snippet } from './searchSnippet';
import { searchTokens } from './searchTokens';

/**
 * The one search engine of the tape (issue 35): `search`, `tape_search`, the inspector's filter,
 * `search-all` and Search All Sessions all answer through `searchEntries`, from the tape's
 * persisted full-text index (`entries_fts`, written with each row, src/store/search.ts), so
 * nothing is built per process or per query, with one tokenizer (searchTokens.ts), one query
 * reading (searchQuery.ts), one ranking and one snippet rule (searchSnippet.ts).
 *
 * **Candidates** come from the index: every entry whose indexed text matches the query, in the
 * scope's session, entry range, kinds and time (filtered in SQL), each with its BM25 score (k1 =
 * 1.2, b = 0.75, over the whole index).
 *
 * **What counts.** Every candidate, unless the scope is a `transcript` (Search All Sessions): then
 * only what a session's transcript says: user and assistant messages in the version in force (the
 * fold of that message's own rows, pending versions included as the inspector shows them; a
 * retracted message still counts: the transcript shows it, marked), each tool call and tool result
 * in its latest version (a crash-repair stand-in never replacing a recorded result), compaction
 * summaries (the anchors and the user's summary edits) and handoff notes (`searchableText.ts`),
 * judged on the candidates only, reading the rows of their messages (`messageRows`), never a whole
 * session or tape; and the host's `keep` (an agent filter).
 *
 * **Ranking.** BM25, times 1.5 when the query's words occur in the entry's shown text
 * consecutively and in order (the phrase bonus, judged on the 64 best, or 4 × the limit when
 * more, of which only those the bonus could lift among the shown are read; a query of one word is
 * ranked by BM25 alone, so only the hits shown are read). Equal scores: the later row first (rows are appended in time order), so the order is a
 * function of the tape alone.
 */

/** An entry the index matched, with its BM25 score: what judging and ranking it needs, no more (a common word matches most rows). */
export interface SearchMatch {
  /** The row's id in the tape: later rows were appended later. */
  rowId: number;
  sessionId: string;
  entryId: number;
  kind: Kind;
  name: string;
  /** A message's, tool call's or tool result's. */
  messageId: string | null;
  createdAt: number;
  score: number;
}

/** What the index filters itself (in SQL): all bounds inclusive. */
export interface MatchFilter {
  sessionId?: string;
  /** Entry ids, with a `sessionId`. */
  fromEntryId?: number;
  toEntryId?: number;
  kinds?: readonly Kind[];
  /** `createdAt`, ms since the epoch. */
  fromTime?: number;
  toTime?: number;
}

/** What the engine reads: a TapeStore is one. */
export interface SearchSource {
  /** Every entry in the filter whose indexed text matches the query, in no order. */
  rankedMatches(query: SearchQuery, filter: MatchFilter): RankedMatches;
  /** The rows of these matches, in the order given (a row deleted since is left out). */
  matchRows(matches: readonly RankedMatch[]): SearchMatch[];
  /** The fold rows of these messages of a session (their versions, calls and results), in entry order. */
  messageRows(sessionId: string, messageIds: readonly string[]): readonly FoldRow[];
  getEntry(sessionId: string, entryId: number): Entry | undefined;
}

export interface EntrySearchOptions extends MatchFilter {
  /** Only what transcripts show, in its version in force (see above). */
  transcript?: boolean;
  /** The host's own filter of a candidate (Search All Sessions: its agents). */
  keep?: (m: SearchMatch) => boolean;
  limit: number;
}

export interface EntryHit {
  /** Orders equal scores (`byRank`), also when hits of several searches merge. */
  rowId: number;
  sessionId: string;
  /** As the session stores it (a fork's own entries are numbered from its `session/start`). */
  entryId: number;
  kind: Kind;
  name: string;
  /** Rounded to 4 decimals. */
  score: number;
  snippet: Snippet;
  createdAt: number;
}

export interface EntrySearchResult {
  hits: EntryHit[];
  /**
   * Entries matching the query and scope, of which `hits` are the best. Counted exactly but for a
   * transcript whose index matches more than a first batch (2,000, or more for a large limit):
   * then estimated from the share of the judged matches that counted (`exact` false).
   */
  total: number;
  exact: boolean;
}

const PHRASE_BONUS = 1.5;
const RERANKED = 64;
/** Matches judged at once at first: a query matching fewer is counted exactly (reading that many rows costs tens of ms). */
const FIRST_BATCH = 2000;

/** Best first; equal scores the later row first, so ties are ordered by the tape alone. */
export const byRank = (a: { score: number; rowId: number }, b: { score: number; rowId: number }): number => b.score - a.score || b.rowId - a.rowId;

/**
 * The entry ids of a session's rows that are in force: each message's version the fold shows
 * (pending included, retractions ignored), each call's latest row, each result's latest recorded
 * row (a stand-in only while none is recorded).
 */
function inForce(rows: readonly FoldRow[]): Set<number> {
  const ids = new Set<number>();
  for (const m of foldAll(
    rows.filter((r) => r.kind === 'message'),
    { includePending: true },
  ).messages)
    ids.add(m.entryId);
  const latest = new Map<string, FoldRow>();
  for (const r of rows) {
    if ((r.kind !== 'tool_call' && r.kind !== 'tool_result') || r.toolCallId === null) continue;
    const key = `${r.kind}\u0000${r.messageId}\u0000${r.toolCallId}`;
    const old = latest.get(key);
    if (old === undefined || !r.interrupted || old.interrupted) latest.set(key, r);
  }
  for (const r of latest.values()) ids.add(r.entryId);
  return ids;
}

/** The matches in force: messages, calls and results in their version shown (read per session, of their messages only), the rest as they are. */
function inForceOf(source: SearchSource, matches: SearchMatch[]): SearchMatch[] {
  const versioned = (m: SearchMatch): boolean => m.kind === 'message' || m.kind === 'tool_call' || m.kind === 'tool_result';
  const ids = new Map<string, Set<string>>();
  for (const m of matches) {
    if (!versioned(m) || m.messageId === null) continue;
    let set = ids.get(m.sessionId);
    if (set === undefined) ids.set(m.sessionId, (set = new Set()));
    set.add(m.messageId);
  }
  const kept = new Map<string, Set<number>>();
  for (const [sessionId, set] of ids) kept.set(sessionId, inForce(source.messageRows(sessionId, [...set])));
  return matches.filter((m) => !versioned(m) || kept.get(m.sessionId)?.has(m.entryId) === true);
}

/** The best `limit` entries matching `query` in the scope, ranked, with their snippets; see above. */
export function searchEntries(source: SearchSource, query: SearchQuery, options: EntrySearchOptions): EntrySearchResult {
  const { transcript = false, keep, limit, ...filter } = options;
  const queue = source.rankedMatches(query, filter);
  const wanted = Math.max(RERANKED, 4 * limit);
  // Only a phrase bonus can reorder the best BM25 matches; a query of one word has none.
  const reranked = query.words.length > 1 ? wanted : limit;
  const judge = (rows: SearchMatch[]): SearchMatch[] => {
    const kept = transcript ? rows.filter(isSearchable) : rows;
    const own = keep === undefined ? kept : kept.filter(keep);
    return transcript ? inForceOf(source, own) : own;
  };
  // Judged best BM25 first, a growing batch at a time, until the hits to rerank are found: a
  // common word matches most of a tape, and judging reads each match's row.
  const counted: SearchMatch[] = [];
  const judging = transcript || keep !== undefined;
  for (let batch = judging ? Math.max(2 * wanted, FIRST_BATCH) : reranked; !queue.done && counted.length < (judging ? wanted : reranked); batch *= 4) {
    counted.push(...judge(source.matchRows(queue.next(batch))));
  }
  counted.sort(byRank);
  // Without judging every match counts, so the index's count is the total.
  const exact = queue.done || !judging;
  const total = !judging ? queue.length : exact ? counted.length : Math.round((counted.length / queue.judged) * queue.length);

  // A match whose score times the bonus stays below the limit-th best score cannot be shown: only
  // the others are read (a margin for the rounding below).
  const floor = reranked > limit && counted.length > limit ? counted[limit - 1].score / PHRASE_BONUS - 1e-4 : -Infinity;
  const read = counted.slice(0, reranked).flatMap((m, i) => {
    if (i >= limit && m.score < floor) return [];
    const entry = source.getEntry(m.sessionId, m.entryId);
    if (entry === undefined) return [];
    const text = searchableText(entry);
    // Rounded before ranking, so hits merged from several searches (a fork's lineage) rank the same.
    const score = Math.round((hasPhrase(text, query.words) ? m.score * PHRASE_BONUS : m.score) * 1e4) / 1e4;
    return [{ ...m, score, text }];
  });
  read.sort(byRank);
  return {
    total,
    exact,
    hits: read.slice(0, limit).map(({ rowId, sessionId, entryId, kind, name, score, createdAt, text }) => ({
      rowId,
      sessionId,
      entryId,
      kind,
      name,
      score,
      snippet: snippetOf(text, hitRanges(searchTokens(text), query.words)),
      createdAt,
    })),
  };
}
