import type { LineOrigin } from '../../blame/tapeBlame';
import { agentLabel } from '../agentLabel';
import { codeSpan } from '../tools/markdownCode';
import type { BlameAction } from './blameActions';
import { timeAgo } from './timeAgo';

/** A hover shows the start of the turn's prompt; the inspector has all of it. */
const PROMPT_CHARS = 300;

/** The prompt's start, on one line (the code span makes each line break a space). */
export function shortPrompt(prompt: string, max = PROMPT_CHARS): string {
  const line = prompt.trim().replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * A `command:` link's target: the arguments as JSON, percent-encoded as VS Code decodes them. The
 * characters `encodeURIComponent` leaves (`( ) ! ' *`) are encoded too: a `)` from the tape would
 * otherwise end the link's destination and leave the rest to be read as Markdown.
 */
export function commandUri(command: string, args: readonly unknown[]): string {
  const query = encodeURIComponent(JSON.stringify(args)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `command:${command}?${query}`;
}

const utcMinute = (at: string): string | null => {
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

/**
 * The hover of a line an agent wrote, as Markdown: who (agent, model), where (session title, turn),
 * when, the prompt, and the actions as command links. Everything the tape gives is a code span
 * (`markdownCode.ts`), so none of it can become a link, markup or HTML; the links are ours, their
 * titles fixed and their arguments encoded by `commandUri`.
 */
export function blameHoverMarkdown(origin: LineOrigin, actions: readonly BlameAction[], now: number): string {
  const when = utcMinute(origin.at);
  const who = [`**Agent Tape blame:** ${codeSpan(agentLabel(origin.agent))}`, ...(origin.model === null ? [] : [codeSpan(origin.model)])].join(' ');
  const where = [
    origin.sessionTitle === null ? codeSpan(origin.sessionId) : codeSpan(origin.sessionTitle),
    ...(origin.turn === null ? [] : [`turn ${origin.turn}`]),
    `${timeAgo(origin.at, now)}${when === null ? '' : ` (${when})`}`,
  ].join(' · ');
  const paragraphs = [who, where];
  if (origin.prompt !== null && origin.prompt.trim() !== '') paragraphs.push(`Prompt: ${codeSpan(shortPrompt(origin.prompt))}`);
  if (actions.length > 0) paragraphs.push(actions.map((a) => `[${a.title}](${commandUri(a.command, a.args)})`).join(' · '));
  return paragraphs.join('\n\n');
}
