const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const MONTH_MS = 30 * DAY_MS;
const YEAR_MS = 365 * DAY_MS;

const counted = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'} ago`;

/**
 * How long before `now` the ISO time `at` was, in the few words a blame note has room for ("3 h
 * ago"), rounded down as GitLens does. A time after `now` (another machine's clock) is "just now".
 */
export function timeAgo(at: string, now: number): string {
  const then = Date.parse(at);
  if (Number.isNaN(then)) return 'at an unknown time';
  const ms = now - then;
  if (ms < MINUTE_MS) return 'just now';
  if (ms < HOUR_MS) return `${Math.floor(ms / MINUTE_MS)} min ago`;
  if (ms < DAY_MS) return `${Math.floor(ms / HOUR_MS)} h ago`;
  if (ms < MONTH_MS) return counted(Math.floor(ms / DAY_MS), 'day');
  if (ms < YEAR_MS) return counted(Math.floor(ms / MONTH_MS), 'month');
  return counted(Math.floor(ms / YEAR_MS), 'year');
}
