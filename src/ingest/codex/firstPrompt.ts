import { promptLine } from '../agentDiscovery';
import { isJsonRecord, type JsonRecord } from '../jsonlHead';

/**
 * What Codex itself sends as user messages but the person did not type (codex-rs
 * `is_contextual_user_fragment`): the AGENTS.md instructions, the environment, skills, a shell
 * command run with `!`, an aborted turn's note, subagent notices. A part is one when, trimmed, it
 * starts with the open tag and ends with the close tag, in any case.
 */
const CONTEXT_FRAGMENTS: readonly (readonly [string, string])[] = [
  ['# agents.md instructions for ', '</instructions>'],
  ['<user_instructions>', '</user_instructions>'],
  ['<environment_context>', '</environment_context>'],
  ['<skill>', '</skill>'],
  ['<user_shell_command>', '</user_shell_command>'],
  ['<turn_aborted>', '</turn_aborted>'],
  ['<subagents>', '</subagents>'],
  ['<subagent_notification>', '</subagent_notification>'],
];
export const isContextFragment = (text: string): boolean => {
  const t = text.trim().toLowerCase();
  return CONTEXT_FRAGMENTS.some(([open, close]) => t.startsWith(open) && t.endsWith(close));
};

/**
 * A user message's text parts as a session's title: the one rule the Import picker (discovery.ts)
 * and the tape (codex.ts: such a message is a codex/context event, not the person's) both follow.
 */
export function promptTitle(parts: readonly string[]): string | null {
  const text = parts.join('\n\n');
  return text.trim() === '' || parts.some(isContextFragment) ? null : promptLine(text);
}

/** The title of a rollout from its first records, as the tape will title it once ingested. */
export function firstPromptOf(records: readonly JsonRecord[]): string | null {
  for (const r of records) {
    const p = r.payload;
    if (r.type !== 'response_item' || !isJsonRecord(p) || p.type !== 'message' || p.role !== 'user' || !Array.isArray(p.content)) continue;
    const parts = p.content.filter(isJsonRecord).flatMap((c) => (typeof c.text === 'string' ? [c.text] : []));
    const title = promptTitle(parts);
    if (title !== null) return title;
  }
  return null;
}
