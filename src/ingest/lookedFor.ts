import { AGENT_LABELS, AGENTS, FORMAT_NAMES } from './agents';
import type { FormatName } from './format';

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
