/**
 * The filters a search query may carry as words of its own, for the hosts whose only input is one
 * line (the Search All Sessions QuickPick): `agent:NAME` (again for more agents), `since:YYYY-MM-DD`
 * and `until:YYYY-MM-DD` (both days included). Everything else is the text searched for. Which
 * time zone a day is in is the host's (the CLI's days are UTC, as `stats` counts them).
 */

export interface Day {
  year: number;
  month: number;
  day: number;
}

export interface QueryFilters {
  /** The query without its filter words. */
  text: string;
  agents: string[];
  since: Day | null;
  until: Day | null;
  /** Filter words that said nothing usable, in words (`since:` without a date, a date that is none). */
  problems: string[];
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const FILTER = /(?<=^|\s)(agent|since|until):(\S*)/giu;

/** A calendar day written `YYYY-MM-DD`, or null when it is not one (`2026-02-30`). */
export function parseDay(text: string): Day | null {
  const m = DAY.exec(text);
  if (m === null) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? { year, month, day } : null;
}

/** The first and last millisecond of a day in UTC. */
export const utcDayBounds = (d: Day): { from: number; to: number } => {
  const from = Date.UTC(d.year, d.month - 1, d.day);
  return { from, to: from + 86_400_000 - 1 };
};

export function queryFilters(query: string): QueryFilters {
  const out: QueryFilters = { text: '', agents: [], since: null, until: null, problems: [] };
  out.text = query
    .replace(FILTER, (_all, key: string, value: string) => {
      const k = key.toLowerCase();
      if (k === 'agent') {
        if (value === '') out.problems.push('agent: needs a name, e.g. agent:codex');
        else out.agents.push(value);
        return '';
      }
      const day = parseDay(value);
      if (day === null) out.problems.push(`${k}: needs a date as YYYY-MM-DD, not ${JSON.stringify(value)}`);
      else if (k === 'since') out.since = day;
      else out.until = day;
      return '';
    })
    .replace(/\s+/g, ' ')
    .trim();
  return out;
}
