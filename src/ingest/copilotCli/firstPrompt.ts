import { userMessageData, type EventLine } from './events';

/**
 * What the person first asked in a Copilot CLI session: its first `user.message` of the main agent
 * that is not a slash command (a subagent's prompt is its parent's call, and `/compact` is no
 * question). Discovery lists a session by it and the tape titles it by it.
 */
export function firstPromptOf(events: readonly EventLine[]): string | undefined {
  for (const { event } of events) {
    if (event.type !== 'user.message' || event.agentId !== undefined) continue;
    const m = userMessageData.safeParse(event.data);
    if (m.success && m.data.content.trim() !== '' && !m.data.content.trimStart().startsWith('/')) return m.data.content;
  }
  return undefined;
}
