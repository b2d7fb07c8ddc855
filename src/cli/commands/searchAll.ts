import { sessionAgentOf } from '../../store/sessionAgent';
import { parseDay, utcDayBounds } from '../../tape/search/searchFilters';
import { markedText } from '../../tape/search/searchSnippet';
import { MAX_LIMIT, SessionSearch } from '../../tape/search/sessionSearch';
import { sessionTitleOf } from '../../tape/sessionTitle';
import { int, parseArgs, str, UsageError } from '../args';
import { json, type Io } from '../output';
import { withTape } from './withTape';

export const dayFlag = (value: string | undefined, flag: string): ReturnType<typeof utcDayBounds> | undefined => {
  if (value === undefined) return undefined;
  const day = parseDay(value);
  if (day === null) throw new UsageError(`--${flag} must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return utcDayBounds(day);
};

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * `search-all <tape> <query...> [--agent A]... [--session S] [--since DAY] [--until DAY] [--limit N] [--json]`:
 * Search All Sessions' ranked search (src/tape/search/sessionSearch.ts, the one engine over the
 * tape's own full-text index) over what every session's conversation says, with each hit's session
 * (agent, title, date). Days are UTC, both included.
 */
export function searchAllCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, {
    valued: ['session', 'since', 'until', 'limit'],
    repeated: ['agent'],
    switches: ['json'],
    positional: ['tape', 'query'],
    rest: true,
  });
  const [file, ...words] = p.positional;
  const query = words.join(' ');
  if (query.trim() === '') throw new UsageError('the query has no words to search for');
  const since = dayFlag(str(p, 'since'), 'since');
  const until = dayFlag(str(p, 'until'), 'until');
  const limit = int(p, 'limit');
  if (limit !== undefined && (limit < 1 || limit > MAX_LIMIT)) throw new UsageError(`--limit must be from 1 to ${MAX_LIMIT}, got ${limit}`);
  const agents = p.lists.get('agent') ?? [];
  return withTape(file, (tape) => {
    const index = new SessionSearch(tape.store, { agentOf: (id) => sessionAgentOf(tape.store, id), titleOf: (id) => sessionTitleOf(tape.reader, id) });
    const { hits, total, exact } = index.search(query, { agents, sessionId: str(p, 'session'), from: since?.from, to: until?.to, limit });
    // Every session's agent is asked only when the query names agents.
    const known = agents.length > 0 ? new Set(index.agents().map((a) => a.agent)) : new Set<string>();
    const unknown = agents.filter((a) => !known.has(a));
    if (unknown.length > 0) io.err(`agent-tape: no session of ${unknown.join(', ')} on this tape (its agents: ${[...known].join(', ') || 'none'})\n`);
    if (p.flags.has('json')) return (json(io, { hits, total, exact }), 0);
    for (const h of hits) {
      io.out(`${h.sessionId} #${h.entryId} ${h.kind} ${h.name} (${h.score}) ${h.agent} · ${h.title ?? 'untitled'} · ${dayOf(h.sessionStartedAt)}\n`);
      io.out(`  ${markedText(h.snippet)}\n`);
    }
    io.out(total === 0 ? 'no matches\n' : `${hits.length} of ${exact ? '' : 'about '}${total} match${total === 1 ? '' : 'es'}\n`);
    return 0;
  });
}
