import { AGENT_LABELS, type FormatName } from '../ingest/format';
import { OWN_AGENT } from '../tape/usageStats';

const isFormat = (agent: string): agent is FormatName => Object.hasOwn(AGENT_LABELS, agent);

/** An agent as people call it ("Claude Code", "Agent Tape"); a name the tape gives that we do not know is shown as it is. */
export function agentLabel(agent: string): string {
  if (agent === OWN_AGENT) return 'Agent Tape';
  return isFormat(agent) ? AGENT_LABELS[agent] : agent;
}
