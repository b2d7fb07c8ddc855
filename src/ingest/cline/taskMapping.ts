import { sha256Hex } from '../../tape/canonicalJson';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { createdAtOf, eventEntry, sourceKey } from '../format';
import type { ClineAgent } from './taskFolder';

/**
 * What the parts of one task's mapping share: the session, the skipped counts, and how entries of
 * this agent are named and keyed. Keys come from the files' own times (`ts`, milliseconds), which
 * stay with a message when a file is rewritten, and hold a digest of what an entry says, so a
 * message the agent changes in place (a resumed task's last message, a subtask's result written
 * back into its parent) is a new revision rather than lost.
 */
export interface TaskMapping {
  agent: ClineAgent;
  sessionId: string;
  skipped: Record<string, number>;
}

/** An event of this agent (`cline/thinking`, `roo/checkpoint`, …). */
export const agentEvent = (m: TaskMapping, name: string, key: (string | number)[], data: JsonObject, timestamp?: unknown): NewEntry =>
  eventEntry(`${m.agent}/${name}`, sourceKey(m.sessionId, name, ...key), data, timestamp);

/** A short digest of what an entry says, for its key. */
export const digestOf = (value: unknown): string => sha256Hex(JSON.stringify(value) ?? '').slice(0, 16);

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function messageEntry(m: TaskMapping, role: 'user' | 'assistant', messageId: string, orderSeq: number, content: string, timestamp?: number): NewEntry {
  return {
    kind: 'message',
    name: `message/${role}`,
    provenanceKey: sourceKey(m.sessionId, 'message', messageId, digestOf(content)),
    payload: { messageId, role, status: 'sent', orderSeq, content },
    ...createdAtOf(timestamp),
  };
}
