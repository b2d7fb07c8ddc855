import { searchEntries, type EntryHit, type SearchSource } from './entrySearch';
import { parseQuery } from './searchQuery';

/**
 * Search All Sessions (issue 22, issue 38): a ranked search over the conversations of every
 * session of a tape, through the one engine (entrySearch.ts) with a `transcript` scope, the query
 * in the `plain` syntax (searchQuery.ts), and each hit's session facts (agent, title, start).
 */

/** What the search reads: a TapeStore is one. */
export interface SessionSearchSource extends SearchSource {
  sessions(): readonly { sessionId: string }[];
}

/** What a hit's session is, as its host knows it (the agent from its ingest format, the title its views show). */
export interface SessionFacts {
  agentOf(sessionId: string): string;
  titleOf(sessionId: string): string | null;
}

export interface SessionSearchOptions {
  /** Only sessions of these agents (agent ids, `agentOf`); all when absent or empty. */
  agents?: readonly string[];
  /** Only this session's own entries. */
  sessionId?: string;
  /** Inclusive bounds on the entry's `createdAt`, ms since the epoch. */
  from?: number;
  to?: number;
  /** At most this many hits (default 50, at most 1,000). */
  limit?: number;
  /** The query is being typed: its last word, of 3 characters or more, also matches the longer words it begins. */
  prefix?: boolean;
}

export interface SessionSearchHit extends Omit<EntryHit, 'rowId'> {
  agent: string;
  title: string | null;
  /** The session's first entry's time. */
  sessionStartedAt: number;
}

export interface SessionSearchResult {
  hits: SessionSearchHit[];
  /** See EntrySearchResult. */
  total: number;
  exact: boolean;
}

const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export class SessionSearch {
  constructor(
    private readonly source: SessionSearchSource,
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
    const parsed = parseQuery(query, 'plain', options.prefix === true);
    if (parsed === null) return { hits: [], total: 0, exact: true };
    const agents = options.agents?.length ? new Set(options.agents) : null;
    const { hits, total, exact } = searchEntries(this.source, parsed, {
      transcript: true,
      limit,
      sessionId: options.sessionId,
      fromTime: options.from,
      toTime: options.to,
      keep: agents === null ? undefined : (m) => agents.has(this.facts.agentOf(m.sessionId)),
    });
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
      hits: hits.map(({ sessionId, entryId, kind, name, score, snippet, createdAt }) => ({
        sessionId,
        entryId,
        kind,
        name,
        score,
        snippet,
        createdAt,
        ...sessionOf(sessionId),
      })),
    };
  }
}

const searches = new WeakMap<SessionSearchSource, SessionSearch>();

/** The search of a source, kept with it: every caller on one store shares it. */
export function sessionSearchOf(source: SessionSearchSource, facts: SessionFacts): SessionSearch {
  let search = searches.get(source);
  if (search === undefined) searches.set(source, (search = new SessionSearch(source, facts)));
  return search;
}
