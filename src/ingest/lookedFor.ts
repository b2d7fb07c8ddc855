import { AGENT_LABELS, AGENTS, FORMAT_NAMES } from './agents';
import type { FormatName } from './format';
import type { IngestReport } from './ingest';

/** One line per agent looked for: the one `from` names, else every one (Cline's family on one line, they share a shape). */
export function lookedFor(from?: FormatName): string[] {
  if (from !== undefined) return [`${AGENT_LABELS[from]}: ${AGENTS[from].shape}`];
  const byShape = new Map<string, string[]>();
  for (const format of FORMAT_NAMES) {
    const { shape } = AGENTS[format];
    byShape.set(shape, [...(byShape.get(shape) ?? []), AGENT_LABELS[format]]);
  }
  return [...byShape].map(([shape, agents]) => `${agents.join(', ')}: ${shape}`);
}

/**
 * Why a source read as an agent's gave no session, or undefined when it gave one (or its last line
 * is still being written): a file of spans from some other instrumentation, say, is valid and
 * holds nothing, and "0 sessions" alone would not tell the person why.
 */
export function noSessionIn(report: Pick<IngestReport, 'file' | 'format' | 'sessions' | 'skipped' | 'tornLastLine'>): string | undefined {
  if (report.format === null || report.sessions.length > 0 || report.tornLastLine) return undefined;
  const skipped = Object.entries(report.skipped).map(([type, n]) => `${type} ${n}`);
  const passed = skipped.length === 0 ? '' : ` (passed over: ${skipped.join(', ')})`;
  return `no ${AGENT_LABELS[report.format]} session in ${report.file}${passed}; looked for ${AGENTS[report.format].shape}`;
}
