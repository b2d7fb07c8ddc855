import { queryFilters, type Day } from '../../tape/search/searchFilters';
import type { SessionSearch, SessionSearchOptions, SessionSearchResult } from '../../tape/search/sessionSearch';
import { agentLabel } from '../agentLabel';

/** The most hits the pick lists. */
const PICK_LIMIT = 100;

/** What the Search All Sessions pick's buttons chose; the query's own `agent:`/`since:`/`until:` words add to it. */
export interface ButtonFilters {
  agents: readonly string[];
  /** Where the date button's range starts; null: any time. */
  from: number | null;
}

export interface PickQueryResult extends SessionSearchResult {
  /** The query without its filter words: nothing was searched when it is empty. */
  text: string;
  /** Filter words that said nothing usable, and agents not on the tape. */
  problems: string[];
}

/** In the extension a day is the user's own (local) day, as the dates shown are. */
const localDay = (d: Day, end: boolean): number => new Date(d.year, d.month - 1, d.day + (end ? 1 : 0)).getTime() - (end ? 1 : 0);

/**
 * What the pick shows for the line typed (src/extension/search/searchPick.ts), without VS Code:
 * its filter words read, agents named by id or label prefix, the one engine asked through
 * `index` (sessionSearch.ts). The last word is still being typed until a space follows it.
 */
export function pickQuery(index: SessionSearch, value: string, buttons: ButtonFilters): PickQueryResult {
  const f = queryFilters(value);
  // Every session's agent is asked only when the query names agents.
  const known = f.agents.length > 0 ? index.agents().map((a) => a.agent) : [];
  const problems = [...f.problems];
  const named = f.agents.flatMap((name) => {
    const n = name.toLowerCase();
    const found = known.filter((a) => a === n || a.startsWith(n) || agentLabel(a).toLowerCase().startsWith(n));
    if (found.length === 0) problems.push(`no agent "${name}" on this tape`);
    return found;
  });
  const agents = [...new Set([...buttons.agents, ...named])];
  const since = f.since === null ? null : localDay(f.since, false);
  const from = Math.max(buttons.from ?? -Infinity, since ?? -Infinity);
  const options: SessionSearchOptions = {
    limit: PICK_LIMIT,
    // The last word is still being typed until a space follows it.
    prefix: !/\s$/.test(value),
    ...(agents.length > 0 ? { agents } : {}),
    ...(Number.isFinite(from) ? { from } : {}),
    ...(f.until === null ? {} : { to: localDay(f.until, true) }),
  };
  // A filter word naming no agent on the tape finds nothing, rather than everything.
  const found = f.text === '' || (f.agents.length > 0 && named.length === 0) ? { hits: [], total: 0, exact: true } : index.search(f.text, options);
  return { ...found, text: f.text, problems };
}
