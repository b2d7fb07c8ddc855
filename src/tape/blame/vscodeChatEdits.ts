import * as z from 'zod';
import type { Entry } from '../entry';
import { VSCODE_CHAT_EDIT_EVENT } from '../entryNames';
import type { FileEdit } from './fileChange';

/**
 * The text edits VS Code's chat recorded for a response (a `textEditGroup` part, on the tape as a
 * `vscode-chat/edit` event): each edit's range names a version of the document we do not have, so
 * its text is `written`, placed where it can be without doubt. Edits that only delete write
 * nothing; notebook edit groups (cell edits) and documents that are not files are left out.
 */

const textEdit = z.looseObject({ text: z.string() });
const editEvent = z.looseObject({
  data: z.looseObject({ kind: z.literal('textEditGroup'), uri: z.string().min(1), edits: z.array(z.unknown()) }),
});
// A scheme is two letters or more, so a Windows path's drive (`c:\…`) is not one.
const OTHER_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;

/** The path a recorded URI names: the ingest keeps a file's path, or a `file:` URI as written; null for another scheme. */
function pathOfUri(uri: string): string | null {
  if (uri.startsWith('file:')) {
    try {
      const p = decodeURIComponent(new URL(uri).pathname);
      return /^\/[A-Za-z]:\//.test(p) ? p.slice(1) : p;
    } catch {
      return null;
    }
  }
  return OTHER_SCHEME.test(uri) ? null : uri;
}

export function editsOfVscodeChatEvent(entry: Entry): FileEdit[] {
  if (entry.name !== VSCODE_CHAT_EDIT_EVENT) return [];
  const event = editEvent.safeParse(entry.payload);
  if (!event.success) return [];
  const path = pathOfUri(event.data.data.uri);
  if (path === null || path === '') return [];
  const texts = event.data.data.edits
    .flatMap((e) => (Array.isArray(e) ? e : [e]))
    .flatMap((e) => {
      const parsed = textEdit.safeParse(e);
      return parsed.success && parsed.data.text !== '' ? [parsed.data.text] : [];
    });
  return texts.length === 0 ? [] : [{ path, changes: texts.map((newText) => ({ kind: 'written', newText })) }];
}
