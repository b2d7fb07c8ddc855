import { SYSTEM_PROMPT } from './entryNames';
import { sha256Hex } from './canonicalJson';
import { type NewEntry } from './entry';

/**
 * The system prompt is written to the tape (a `system/prompt` entry) rather than built per request:
 * the context builder then stays a pure function of the tape prefix, and a replay sends exactly the
 * prompt the model saw, whatever the workspace's AGENTS.md or the clock say today.
 */

const systemPromptHashOf = (text: string): string => sha256Hex(text);

export function systemPromptEntry(text: string): NewEntry {
  return { kind: 'system', name: SYSTEM_PROMPT, payload: { content: text, hash: systemPromptHashOf(text) } };
}

/**
 * Whether the prompt in force (the hash of the last `system/prompt` entry, null when there is none)
 * differs from `text`: the loop appends a new prompt only then, so an unchanged prompt costs one
 * entry per session, not one per turn.
 */
export const needsSystemPrompt = (lastPromptHash: string | null, text: string): boolean => lastPromptHash !== systemPromptHashOf(text);
