import type { AgentDiscovery } from './agentDiscovery';
import type { TranscriptFormat } from './format';
import type { SourceFormat } from './sourceFormat';

/** How an agent's sessions are read: line by line from where the last run stopped, or whole on every run. */
export type AgentReader = { kind: 'lines'; format: TranscriptFormat } | { kind: 'source'; format: SourceFormat };

/**
 * Everything Agent Tape knows of one agent, from its own folder (`src/ingest/<agent>/agent.ts`):
 * the registry (agents.ts) lists one of these per format name, and every list of agents (the
 * formats tried, discovery, the CLI's `--from`, the labels, what a walk looked for) is read from it.
 */
export interface IngestAgent {
  /** As people call it, for lists, groups and messages. */
  readonly label: string;
  readonly reader: AgentReader;
  /** Its sessions of a workspace; null when another agent's discovery lists them too (Roo's and Kilo's by Cline's), or no folder holds them (OTLP files). */
  readonly discovery: AgentDiscovery | null;
  /** What a folder walk takes for its sessions, as a user reads it when a folder held none. */
  readonly shape: string;
}
