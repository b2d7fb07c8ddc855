import type { LiveExportOptions } from '../../otel/liveExporter';

export type ExportLog = NonNullable<LiveExportOptions['log']>;

/** A collector that is down fails every batch and every retry: the log says so, not once a second. */
const PROBLEM_LINE_MS = 30_000;

/**
 * The exporter's log with its warnings and errors rate-limited: at most one line of each level
 * per `windowMs`, the next one saying how many were left out meanwhile. Info lines (a collector
 * taking spans again) always pass. Kept free of `vscode` for unit tests.
 */
export function rateLimitedLog(write: ExportLog, windowMs = PROBLEM_LINE_MS, now: () => number = Date.now): ExportLog {
  const last = new Map<string, { at: number; leftOut: number }>();
  return (level, line) => {
    if (level === 'info') return write(level, line);
    const seen = last.get(level);
    const t = now();
    if (seen !== undefined && t - seen.at < windowMs) {
      seen.leftOut += 1;
      return;
    }
    const more = seen === undefined || seen.leftOut === 0 ? '' : ` (${seen.leftOut} more like it left out of the log before this)`;
    last.set(level, { at: t, leftOut: 0 });
    write(level, `${line}${more}`);
  };
}
