import { AGENT_LABELS, isFormatName } from '../ingest/agents';
import { OWN_AGENT } from '../tape/usage/usageStats';

/** An agent as people call it ("Claude Code", "Agent Tape"); a name the tape gives that we do not know is shown as it is. */
export function agentLabel(agent: string): string {
  if (agent === OWN_AGENT) return 'Agent Tape';
  return isFormatName(agent) ? AGENT_LABELS[agent] : agent;
}
