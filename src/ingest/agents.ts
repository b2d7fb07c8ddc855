import { claudeCodeAgent } from './claudeCode/agent';
import { clineAgent, kiloAgent, rooAgent } from './cline/agent';
import { codexAgent } from './codex/agent';
import { copilotCliAgent } from './copilotCli/agent';
import type { FormatName } from './format';
import { geminiAgent } from './gemini/agent';
import type { IngestAgent } from './ingestAgent';
import { opencodeAgent } from './opencode/agent';
import { otlpAgent } from './otlp/agent';
import { vscodeChatAgent } from './vscodeChat/agent';

/**
 * The registry: every agent whose sessions Agent Tape reads, by format name, in the order formats
 * are tried. An agent is a folder of its own (its format, discovery and first-prompt rule) and one
 * line here; the type makes the compiler ask for the line once its name is a FormatName.
 */
export const AGENTS: Readonly<Record<FormatName, IngestAgent>> = {
  'claude-code': claudeCodeAgent,
  codex: codexAgent,
  'vscode-chat': vscodeChatAgent,
  opencode: opencodeAgent,
  gemini: geminiAgent,
  cline: clineAgent,
  roo: rooAgent,
  kilo: kiloAgent,
  'copilot-cli': copilotCliAgent,
  otlp: otlpAgent,
};

export const FORMAT_NAMES = Object.keys(AGENTS) as FormatName[];

/** Each format's agent as people call it, for lists, groups and messages. */
export const AGENT_LABELS = Object.fromEntries(FORMAT_NAMES.map((n) => [n, AGENTS[n].label])) as Readonly<Record<FormatName, string>>;

export const isFormatName = (name: string): name is FormatName => Object.hasOwn(AGENTS, name);
