import type { Entry, Kind } from '../entry';
import { foldAll, type FoldRow } from '../fold';
import { isSearchable, searchableText } from './searchableText';
import { snippetOf, type Snippet } from './searchSnippet';
import { queryTerms, searchTokens, type SearchToken } from './searchTokens';

/**
 * Search All Sessions (issue 22, issue 38): a ranked search over the conversations of every
 * session of a tape, answered from the tape's persisted full-text index (`entries_fts`, written
 * with each row, src/store/search.ts), so nothing is built per process or per query.
 *
 * **Candidates** come from the index: every entry whose indexed text holds all the query's words
 * (plain text, nothing in it an operator; the FTS tokens: NFKC, lower case, ASCII punctuation and
 * non-ASCII punctuation separate words, a CJK run is a phrase of its characters, so a substring
 * match; with `prefix`, a last word of 3 characters or more also matches the words it begins,
 * `word*`), of the kinds
 * searched, in the time range, each with its BM25 score (k1 = 1.2, b = 0.75, over the whole index).
 *
 * **What counts** (judged on the candidates only): per session, what its transcript says: user and
 * assistant messages in the version in force (the fold of that message's own rows, pending versions
 * included as the inspector shows them; a retracted message still counts: the transcript shows it,
 * marked), each tool call and tool result in its latest version (a crash-repair stand-in never
 * replacing a recorded result), compaction summaries (the anchors and the user's summary edits) and
 * handoff notes (`searchableText.ts`). Judging a message or a tool row reads the rows of its message
 * only (`messageRows`), never a whole session or tape.
 *
 * **Ranking.** BM25, times 1.5 when the query's words occur in the entry's text consecutively and
 * in order (the phrase bonus, judged on the 64 best, or 4 × the limit when more). Equal scores: the
 * newer entry first, then by session id and entry id, so the order is a function of the tape alone.
 */

/** An entry the index matched: its row id and BM25 score. */
export interface RankedMatch {
  id: number;
  score: number;
}

/** An entry the index matched, with its BM25 score: what judging and ranking it needs, no more (a common word matches most rows). */
export interface SearchMatch {
  sessionId: string;
  entryId: number;
  kind: Kind;
  name: string;
  /** A message's, tool call's or tool result's. */
  messageId: string | null;
  createdAt: number;
  score: number;
}

/** What the search reads: a TapeStore is one. */
export interface SearchSource {
  sessions(): readonly { sessionId: string }[];
  /** Every entry whose indexed text holds the words of plain `text` (with `prefix`, the last word begins one), in no order. */
  rankedMatches(text: string, prefix: boolean): readonly RankedMatch[];
  /** The rows of these matches, in the order given (a row deleted since is left out). */
  matchRows(matches: readonly RankedMatch[]): SearchMatch[];
  /** The fold rows of these messages of a session (their versions, calls and results), in entry order. */
  messageRows(sessionId: string, messageIds: readonly string[]): readonly FoldRow[];
  getEntry(sessionId: string, entryId: number): Entry | undefined;
}

/** What a hit's session is, as its host knows it (the agent from its ingest format, the title its views show). */
export interface SessionFacts {
  agentOf(sessionId: string): string;
  titleOf(sessionId: string): string | null;
}

export interface SessionSearchOptions {
  /** Only sessions of these agents (agent ids, `agentOf`); all when absent or empty. */
  agents?: readonly string[];
  /** Inclusive bounds on the entry's `createdAt`, ms since the epoch. */
  from?: number;
  to?: number;
  /** At most this many hits (default 50, at most 1,000). */
  limit?: number;
  /** The query's last word, of 3 characters or more, also matches the longer words it begins. */
  prefix?: boolean;
}

export interface SessionSearchHit {
  sessionId: string;
  /** As the session stores it (a fork's own entries are numbered from its `session/start`). */
  entryId: number;
  kind: Kind;
  name: string;
  score: number;
  snippet: Snippet;
  createdAt: number;
  agent: string;
  title: string | null;
  /** The session's first entry's time. */
  sessionStartedAt: number;
}

export interface SessionSearchResult {
  hits: SessionSearchHit[];
  /**
   * Entries matching the query and filters, of which `hits` are the best. Counted exactly when the
   * index matches at most a first batch (2,000, or more for a large limit); past that, estimated
   * from the share of the judged matches that counted (`exact` false).
   */
  total: number;
  exact: boolean;
}

const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;
const PHRASE_BONUS = 1.5;
const RERANKED = 64;
/** Matches judged at once at first: a query matching fewer is counted exactly (reading that many rows costs tens of ms). */
const FIRST_BATCH = 2000;
/** A shorter last word is matched whole: `c*` would name most of the index, and is what the first keystroke asks. */
const MIN_PREFIX = 3;

/** Whether `sequence` occurs in the tokens consecutively; `last` matches a token it begins when prefixing. */
function hasPhrase(tokens: readonly SearchToken[], sequence: readonly string[], prefix: boolean): boolean {
  if (sequence.length < 2) return false;
  const seq = tokens.filter((t) => t.inSequence).map((t) => t.term);
  const matches = (i: number, j: number): boolean => (prefix && j === sequence.length - 1 ? seq[i + j].startsWith(sequence[j]) : seq[i + j] === sequence[j]);
  for (let i = 0; i + sequence.length <= seq.length; i++) {
    let j = 0;
    while (j < sequence.length && matches(i, j)) j++;
    if (j === sequence.length) return true;
  }
  return false;
}

/** Newer first, then session id and entry id: ties are ordered by the tape. */
function order(a: SearchMatch, b: SearchMatch): number {
  const created = b.createdAt - a.createdAt;
  if (created !== 0) return created;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.entryId - b.entryId;
}

const byRank = (a: SearchMatch, b: SearchMatch): number => b.score - a.score || order(a, b);

/** Best BM25 first; equal scores the later row first (rows are appended in time order). */
const byScore = (a: RankedMatch, b: RankedMatch): number => b.score - a.score || b.id - a.id;

/**
 * The index's matches handed out best first, a batch at a time. The first batch is picked without
 * sorting them all (a common word matches hundreds of thousands): matches collect until there are
 * twice the batch, then the worse half goes. Only a search that judges past it sorts everything.
 */
class BestFirst {
  private sorted: RankedMatch[] | undefined;
  private given = 0;

  constructor(private readonly ranked: readonly RankedMatch[]) {}

  get done(): boolean {
    return this.given >= this.ranked.length;
  }

  get judged(): number {
    return this.given;
  }

  next(n: number): RankedMatch[] {
    if (this.given === 0 && n < this.ranked.length) {
      let kept: RankedMatch[] = [];
      for (const m of this.ranked) {
        kept.push(m);
        if (kept.length >= 2 * n) kept = kept.sort(byScore).slice(0, n);
      }
      this.given = n;
      return kept.sort(byScore).slice(0, n);
    }
    this.sorted ??= [...this.ranked].sort(byScore);
    const batch = this.sorted.slice(this.given, this.given + n);
    this.given += batch.length;
    return batch;
  }
}

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

export class SessionSearch {
  constructor(
    private readonly source: SearchSource,
    private readonly facts: SessionFacts,
  ) {}

  /** The agents of the tape's sessions, with how many sessions each, most sessions first. */
  agents(): { agent: string; sessions: number }[] {
    const counts = new Map<string, number>();
    for (const { sessionId } of this.source.sessions()) {
      const agent = this.facts.agentOf(sessionId);
      counts.set(agent, (counts.get(agent) ?? 0) + 1);
    }
    return [...counts].map(([agent, sessions]) => ({ agent, sessions })).sort((a, b) => b.sessions - a.sessions || a.agent.localeCompare(b.agent));
  }

  search(query: string, options: SessionSearchOptions = {}): SessionSearchResult {
    const limit = options.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
    const { terms, sequence, lastWord } = queryTerms(query);
    if (terms.length === 0) return { hits: [], total: 0, exact: true };
    const prefix = options.prefix === true && lastWord !== null && lastWord.length >= MIN_PREFIX;
    const agents = options.agents?.length ? new Set(options.agents) : null;
    const keep = (m: SearchMatch): boolean =>
      isSearchable(m) &&
      (options.from === undefined || m.createdAt >= options.from) &&
      (options.to === undefined || m.createdAt <= options.to) &&
      (agents === null || agents.has(this.facts.agentOf(m.sessionId)));
    // Judged best BM25 first, a growing batch at a time, until the hits to rerank are found: a
    // common word matches most of a tape, and judging reads each match's row.
    const ranked = this.source.rankedMatches(query, prefix);
    const queue = new BestFirst(ranked);
    const wanted = Math.max(RERANKED, 4 * limit);
    const counted: SearchMatch[] = [];
    for (let batch = Math.max(2 * wanted, FIRST_BATCH); !queue.done && counted.length < wanted; batch *= 4) {
      counted.push(...this.counted(this.source.matchRows(queue.next(batch)).filter(keep)));
    }
    counted.sort(byRank);
    const exact = queue.done;
    const total = exact ? counted.length : Math.round((counted.length / queue.judged) * ranked.length);

    const hit = prefix ? (t: string): boolean => terms.includes(t) || t.startsWith(lastWord) : (t: string): boolean => terms.includes(t);
    const read = counted.slice(0, Math.max(RERANKED, 4 * limit)).flatMap((m) => {
      const entry = this.source.getEntry(m.sessionId, m.entryId);
      if (entry === undefined) return [];
      const text = searchableText(entry);
      const tokens = searchTokens(text);
      return [{ ...m, score: hasPhrase(tokens, sequence, prefix) ? m.score * PHRASE_BONUS : m.score, entry, text, tokens }];
    });
    read.sort(byRank);
    // Once per session of the hits: a title is read from the session's rows.
    const sessions = new Map<string, { agent: string; title: string | null; sessionStartedAt: number }>();
    const sessionOf = (sessionId: string) => {
      let s = sessions.get(sessionId);
      if (s === undefined) {
        s = {
          agent: this.facts.agentOf(sessionId),
          title: this.facts.titleOf(sessionId),
          sessionStartedAt: this.source.getEntry(sessionId, 1)?.createdAt ?? 0,
        };
        sessions.set(sessionId, s);
      }
      return s;
    };
    return {
      total,
      exact,
      hits: read.slice(0, limit).map(({ sessionId, entry, text, tokens, score }) => {
        const { agent, title, sessionStartedAt } = sessionOf(sessionId);
        return {
          sessionId,
          entryId: entry.entryId,
          kind: entry.kind,
          name: entry.name,
          score: Math.round(score * 1e4) / 1e4,
          snippet: snippetOf(text, tokens, hit),
          createdAt: entry.createdAt,
          agent,
          title,
          sessionStartedAt,
        };
      }),
    };
  }

  /** The matches that count: messages, calls and results in force (read per session, of their messages only), the rest as they are. */
  private counted(matches: SearchMatch[]): SearchMatch[] {
    const versioned = (m: SearchMatch): boolean => m.kind === 'message' || m.kind === 'tool_call' || m.kind === 'tool_result';
    const ids = new Map<string, Set<string>>();
    for (const m of matches) {
      if (!versioned(m) || m.messageId === null) continue;
      let set = ids.get(m.sessionId);
      if (set === undefined) ids.set(m.sessionId, (set = new Set()));
      set.add(m.messageId);
    }
    const kept = new Map<string, Set<number>>();
    for (const [sessionId, set] of ids) kept.set(sessionId, inForce(this.source.messageRows(sessionId, [...set])));
    return matches.filter((m) => !versioned(m) || kept.get(m.sessionId)?.has(m.entryId) === true);
  }
}

const searches = new WeakMap<SearchSource, SessionSearch>();

/** The search of a source, kept with it: every caller on one store shares it. */
export function sessionSearchOf(source: SearchSource, facts: SessionFacts): SessionSearch {
  let search = searches.get(source);
  if (search === undefined) searches.set(source, (search = new SessionSearch(source, facts)));
  return search;
}
