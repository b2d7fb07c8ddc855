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
  const passed = skippedTypes(report.skipped);
  return `no ${AGENT_LABELS[report.format]} session in ${report.file}${passed === '' ? '' : ` (passed over: ${passed})`}; looked for ${AGENTS[report.format].shape}`;
}

/** A skip type names a record type of the file: shown (in a notification too) only when plain and short, a few of them. */
const PLAIN_TYPE = /^[\w./:-]{1,60}$/;
const SHOWN_TYPES = 5;

function skippedTypes(skipped: Readonly<Record<string, number>>): string {
  const all = Object.entries(skipped);
  const shown = all.filter(([type]) => PLAIN_TYPE.test(type)).slice(0, SHOWN_TYPES);
  const rest = all.length - shown.length;
  return [...shown.map(([type, n]) => `${type} ${n}`), ...(rest > 0 ? [`${rest} other type${rest === 1 ? '' : 's'}`] : [])].join(', ');
}
