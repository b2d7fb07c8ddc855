import * as z from 'zod';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { VSCODE_CHAT_EDIT_EVENT } from '../../tape/entryNames';
import { eventEntry, sourceKey } from '../format';
import { markdownString, textOfMessage, uriText } from './chatData';
import { toolInvocation, type ToolInvocation } from './toolCalls';

/**
 * A response's parts (SerializedChatResponsePart in chatModel.ts) as the tape keeps them. A
 * markdown part is stored as the bare IMarkdownString (`{value, …}`, no `kind`; a plain string in
 * the oldest files): the answer is the markdown parts' text, with inline references written as
 * VS Code writes them when it copies a response. Tool invocations become calls (toolCalls.ts),
 * thinking, edits and the parts a person sees besides the answer become events, and parts that
 * only structure the view (undo stops, code block URIs) are counted as skipped.
 */

export const THINKING_EVENT = 'vscode-chat/thinking';
const PART_EVENT = 'vscode-chat/part';

/** Parts a person sees beside the answer, kept whole as `vscode-chat/part/<kind>` events. */
const SHOWN_PARTS = new Set([
  'progressMessage',
  'progressTaskSerialized',
  'warning',
  'info',
  'systemNotification',
  'confirmation',
  'command',
  'elicitationSerialized',
  'questionCarousel',
  'planReview',
  'pullRequest',
  'extensions',
  'treeData',
  'multiDiffData',
  'workspaceEdit',
  'externalEdit',
  'hook',
  'autoModeResolution',
]);

/** Parts between which VS Code's markdown runs on unbroken (a code block's URI sits inside its fence). */
const INLINE_PARTS = new Set(['codeblockUri', 'undoStop', 'textEditGroup', 'notebookEditGroup']);

const kinded = z.looseObject({ kind: z.string() });
const thinking = z.looseObject({
  kind: z.literal('thinking'),
  value: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .catch(undefined),
  id: z.string().optional().catch(undefined),
  generatedTitle: z.string().optional().catch(undefined),
});
const editGroup = z.looseObject({ kind: z.enum(['textEditGroup', 'notebookEditGroup']), uri: z.unknown(), edits: z.array(z.unknown()) });
const inlineReference = z.looseObject({ kind: z.literal('inlineReference'), inlineReference: z.unknown(), name: z.string().optional().catch(undefined) });
const fileTree = z.looseObject({ label: z.string(), uri: z.unknown() });

/** An inline reference as VS Code copies it: a symbol's or file's name, in backticks. */
function referenceText(ref: z.infer<typeof inlineReference>): { text: string; target: string | undefined } {
  const r = ref.inlineReference as { uri?: unknown; name?: unknown; location?: { uri?: unknown } } | null;
  const target = uriText(r?.uri ?? r?.location?.uri ?? r);
  const name = typeof r?.name === 'string' ? r.name : (ref.name ?? target?.split(/[\\/]/).pop());
  return { text: name === undefined || name === '' ? '' : `\`${name}\``, target };
}

export interface PartsContext {
  sessionId: string;
  requestId: string;
  /** The assistant message the parts belong to. */
  messageId: string;
  timestamp: number | undefined;
}

export interface ReadResponse {
  /** The answer: the markdown parts' text. */
  text: string;
  invocations: ToolInvocation[];
  /** Thinking, edits and shown parts, in response order. */
  events: NewEntry[];
  /** What the inline references point at. */
  references: string[];
}

/** The entries and the answer of a response's parts, each keyed by its index in the response. */
export function readResponse(ctx: PartsContext, parts: readonly { index: number; part: unknown }[], skipped: (type: string) => void): ReadResponse {
  const { sessionId, requestId, messageId, timestamp } = ctx;
  const out: ReadResponse = { text: '', invocations: [], events: [], references: [] };
  // A part that stands apart from the text (a tool call, a notice) ends a paragraph of the answer.
  let apart = false;
  const write = (text: string): void => {
    if (text === '') return;
    if (apart && out.text !== '') out.text += '\n\n';
    out.text += text;
    apart = false;
  };
  const event = (name: string, index: number, data: JsonObject): void => {
    out.events.push(eventEntry(name, sourceKey(sessionId, name, requestId, index), { messageId, ...data }, timestamp));
  };
  for (const { index, part } of parts) {
    if (typeof part === 'string') {
      write(part);
      continue;
    }
    const kind = kinded.safeParse(part).data?.kind;
    if (kind === undefined) {
      const md = markdownString.safeParse(part);
      if (md.success) write(md.data.value);
      else if (fileTree.safeParse(part).success) {
        event(`${PART_EVENT}/treeData`, index, { part: part as JsonObject });
        apart = true;
      } else skipped('response/unknown');
      continue;
    }
    if (kind === 'markdownContent' || kind === 'markdownVuln') {
      const text = textOfMessage((part as { content?: unknown }).content);
      if (text === undefined) skipped(`response/${kind}`);
      else write(text);
    } else if (kind === 'inlineReference') {
      const ref = inlineReference.safeParse(part);
      if (!ref.success) skipped('response/inlineReference');
      else {
        const { text, target } = referenceText(ref.data);
        write(text);
        if (target !== undefined) out.references.push(target);
      }
    } else if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
      const inv = toolInvocation.safeParse(part);
      if (inv.success) out.invocations.push(inv.data);
      else skipped(`response/${kind}`);
      apart = true;
    } else if (kind === 'thinking') {
      const t = thinking.safeParse(part);
      const value = t.data?.value;
      const text = Array.isArray(value) ? value.join('') : (value ?? '');
      // VS Code pushes an empty thinking part to close a block of reasoning.
      if (!t.success || text === '') skipped('response/thinking-empty');
      else event(THINKING_EVENT, index, { text, ...(t.data.id ? { id: t.data.id } : {}), ...(t.data.generatedTitle ? { title: t.data.generatedTitle } : {}) });
      apart = true;
    } else if (kind === 'textEditGroup' || kind === 'notebookEditGroup') {
      const edit = editGroup.safeParse(part);
      if (!edit.success) skipped(`response/${kind}`);
      else
        event(VSCODE_CHAT_EDIT_EVENT, index, {
          kind,
          uri: uriText(edit.data.uri) ?? null,
          edits: edit.data.edits as JsonObject[string],
          done: (part as { done?: unknown }).done === true,
        });
    } else if (SHOWN_PARTS.has(kind)) {
      event(`${PART_EVENT}/${kind}`, index, { part: part as JsonObject });
      apart = true;
    } else {
      if (!INLINE_PARTS.has(kind)) apart = true;
      skipped(`response/${kind}`);
    }
  }
  return out;
}
