import { promptLine } from '../agentDiscovery';
import { isJsonRecord, type JsonRecord } from '../jsonlHead';

/** User records Claude Code writes itself: a background task's notice, an interruption's note, a local command's output. */
export const WRITTEN_BY_CLAUDE_CODE = /^\s*(?:<task-notification>|<local-command-std(?:out|err)>|\[Request interrupted by user)/;

/**
 * A person's message as a session's title: the one rule the Import picker (discovery.ts) and the
 * tape's session/meta (claudeCode.ts) both follow. Slash commands and hook output arrive as user
 * text wrapped in tags; they are what the person did, not what the session is about.
 */
export function promptTitle(text: string): string | null {
  if (text.trim() === '' || text.trimStart().startsWith('<') || WRITTEN_BY_CLAUDE_CODE.test(text)) return null;
  return promptLine(text);
}

const userText = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter(isJsonRecord)
          .filter((b) => b.type === 'text' && typeof b.text === 'string')
          .map((b) => b.text as string)
          .join('\n\n')
      : '';

/** The title of a transcript from its first records, as the tape will title it once ingested. */
export function firstPromptOf(records: readonly JsonRecord[]): string | null {
  for (const r of records) {
    if (r.type !== 'user' || r.isMeta === true || r.isCompactSummary === true || !isJsonRecord(r.message)) continue;
    const title = promptTitle(userText(r.message.content));
    if (title !== null) return title;
  }
  return null;
}
