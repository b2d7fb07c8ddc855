import { AGENT_LABELS, type FormatName } from './format';

/**
 * What a folder walk (sourcesUnder.ts) takes for each agent's sessions, as a user reads it when a
 * folder held none: the names and shapes, so a copy laid out another way can be told what is missing.
 */
const SHAPES: Record<FormatName, string> = {
  'claude-code': '*.jsonl files whose first records are Claude Code\'s ("type": "user", "assistant", "summary", …), subagents in <session>/subagents/',
  codex: '*.jsonl files whose first records are Codex\'s ("type": "session_meta", "response_item", …), rollout-*.jsonl in ~/.codex/sessions',
  'vscode-chat':
    '*.json and *.jsonl files in a chatSessions/ folder, or anywhere when they start as a chat session (its "requests", or a log\'s {"kind":0,"v":…} line)',
  gemini:
    'session-<YYYY-MM-DDTHH-mm>-<id>.json and .jsonl recordings (subagents in a <session id>/ folder beside them), or *.json and *.jsonl files that start with "sessionId" then "projectHash"',
  cline: 'task folders holding api_conversation_history.json or ui_messages.json',
  roo: 'task folders holding api_conversation_history.json or ui_messages.json',
  kilo: 'task folders holding api_conversation_history.json or ui_messages.json',
  opencode: "opencode*.db, a *.db or *.sqlite file with opencode's session, message and part tables, or a storage folder holding session/ and message/ folders",
};

/** One line per agent looked for: the one `from` names, else every one (Cline's family on one line, they share a shape). */
export function lookedFor(from?: FormatName): string[] {
  if (from !== undefined) return [`${AGENT_LABELS[from]}: ${SHAPES[from]}`];
  const byShape = new Map<string, string[]>();
  for (const [format, shape] of Object.entries(SHAPES) as [FormatName, string][]) byShape.set(shape, [...(byShape.get(shape) ?? []), AGENT_LABELS[format]]);
  return [...byShape].map(([shape, agents]) => `${agents.join(', ')}: ${shape}`);
}
