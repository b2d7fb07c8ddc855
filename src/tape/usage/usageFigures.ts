/**
 * Model requests and their tokens as one set of figures, and how they read: the sessions view and
 * the inspector's header say them the same way. It imports nothing, so the webview may use it as
 * well as the host (.dependency-cruiser.cjs SHARED_HELPERS).
 */

export interface UsageFigures {
  /** Stored `provider/attempt` entries: every physical attempt, a retried request's retries included. */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's cache (a part of `inputTokens` or beside it: as the agent reported them). */
  cachedTokens: number;
  /** Input tokens written to the provider's cache, where the agent reports them (Claude Code). */
  cacheCreationTokens: number;
}

/**
 * Whether an attempt's `inputTokens` leaves the cache out. Ingest now stores every input token
 * (src/ingest/tapeUsage.ts, `inputIncludesCached: true`); tapes ingested before kept Anthropic-style
 * figures (Claude Code, Cline, opencode) with the cache apart: said by `inputIncludesCached: false`,
 * or, unsaid, told by a cache-write figure, which only that style reports.
 */
export function inputLeavesCacheOut(usage: { inputIncludesCached?: unknown; cacheCreationTokens?: unknown }): boolean {
  return typeof usage.inputIncludesCached === 'boolean' ? !usage.inputIncludesCached : typeof usage.cacheCreationTokens === 'number';
}

/** An attempt's every input token from its stored `usage` (inputLeavesCacheOut), figures that are not positive numbers taken as 0. */
export function wholeInputOf(usage: { inputTokens?: unknown; cachedTokens?: unknown; cacheCreationTokens?: unknown; inputIncludesCached?: unknown }): number {
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return n(usage.inputTokens) + (inputLeavesCacheOut(usage) ? n(usage.cachedTokens) + n(usage.cacheCreationTokens) : 0);
}

export const NO_USAGE: UsageFigures = Object.freeze({ requests: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0 });

export const addUsage = (a: UsageFigures, b: UsageFigures): UsageFigures => ({
  requests: a.requests + b.requests,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
});

export const sameUsage = (a: UsageFigures, b: UsageFigures): boolean =>
  a.requests === b.requests &&
  a.inputTokens === b.inputTokens &&
  a.outputTokens === b.outputTokens &&
  a.cachedTokens === b.cachedTokens &&
  a.cacheCreationTokens === b.cacheCreationTokens;

const SCALES: readonly (readonly [number, string])[] = [
  [1e3, 'k'],
  [1e6, 'M'],
  [1e9, 'B'],
];

const rounded = (v: number): number => (v < 10 ? Math.round(v * 10) / 10 : Math.round(v));

/** 950, 1.2k, 30k, 1.2M: one decimal below ten of a unit, the unit chosen after rounding (999,960 is 1M, not 1000k). */
export function compactCount(n: number): string {
  if (Math.round(n) < 1000) return String(Math.round(n));
  let i = 0;
  while (i < SCALES.length - 1 && rounded(n / SCALES[i][0]) >= 1000) i++;
  const [scale, unit] = SCALES[i];
  return `${rounded(n / scale)}${unit}`;
}

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** One line: "12 requests · 1.2M in · 30k out · 900k cached" (cache figures only when there are any). */
export function usageLine(u: UsageFigures): string {
  if (u.requests === 0) return 'no requests';
  const parts = [plural(u.requests, 'request', 'requests'), `${compactCount(u.inputTokens)} in`, `${compactCount(u.outputTokens)} out`];
  if (u.cachedTokens > 0) parts.push(`${compactCount(u.cachedTokens)} cached`);
  if (u.cacheCreationTokens > 0) parts.push(`${compactCount(u.cacheCreationTokens)} cache write`);
  return parts.join(' · ');
}

/** The exact figures, for a tooltip: "12 requests: 1,234,567 input tokens (900,000 cached), 30,000 output tokens". */
export function usageDetail(u: UsageFigures): string {
  const cache = [
    u.cachedTokens > 0 ? `${u.cachedTokens.toLocaleString('en-US')} cached` : '',
    u.cacheCreationTokens > 0 ? `${u.cacheCreationTokens.toLocaleString('en-US')} written to the cache` : '',
  ].filter((s) => s !== '');
  return (
    `${plural(u.requests, 'request', 'requests')}: ${plural(u.inputTokens, 'input token', 'input tokens')}` +
    `${cache.length > 0 ? ` (${cache.join(', ')})` : ''}, ${plural(u.outputTokens, 'output token', 'output tokens')}`
  );
}
