import * as path from 'path';
import * as z from 'zod';
import { TapeFileError } from '../../store/errors';
import type { NewEntry } from '../../tape/entry';
import { countSkip, sessionMetaEntry, type Mapped, type MappedSession } from '../format';
import { readSourceBytes, readSourceJson } from '../sourceFiles';
import type { SourceFormat } from '../sourceFormat';
import { chatRequest, chatSession, folderOfUri, isChatSessionState, RESPONSE_NEEDS_INPUT, RESPONSE_PENDING } from './chatData';
import { replayMutationLog, type ReplayedLog } from './mutationLog';
import { requestEntries } from './requestEntries';

/**
 * VS Code's own chat sessions, of Copilot Chat and every other participant:
 * `workspaceStorage/<workspace id>/chatSessions/<session id>.json` (the serialised chat model,
 * ISerializableChatData versions 1 to 3, rewritten whole) and `<session id>.jsonl` (the mutation
 * log VS Code writes instead since it became the default, `chat.useLogSessionStorage`), as VS Code
 * 1.139 writes them (src/vs/workbench/contrib/chat/common/model/chatSessionStore.ts). A window
 * without a folder keeps them in `globalStorage/emptyWindowChatSessions/`. A request whose
 * response is still running is left for a later run, which adds it whole.
 */

/** The folders VS Code keeps chat session files in. */
const SESSION_DIRS = new Set(['chatSessions', 'emptyWindowChatSessions']);

const isVscodeChatFile = (file: string): boolean => SESSION_DIRS.has(path.basename(path.dirname(file))) && /\.jsonl?$/.test(file);

/** The session state a file holds now, and what of it could not be read. */
export function readSessionState(file: string): ReplayedLog {
  if (!file.endsWith('.jsonl')) return { state: readSourceJson(file), skipped: {} };
  return replayMutationLog(file, readSourceBytes(file));
}

const workspaceFile = z.looseObject({ folder: z.string() });

/**
 * The folder of the workspace a session file belongs to: VS Code writes it (a `file:` URI) into
 * `workspace.json` beside `chatSessions/`; a multi-root workspace names no one folder.
 */
function workspaceFolderOf(file: string): string | undefined {
  const dir = path.dirname(file);
  if (path.basename(dir) !== 'chatSessions') return undefined;
  try {
    return folderOfUri(workspaceFile.safeParse(readSourceJson(path.join(path.dirname(dir), 'workspace.json'))).data?.folder);
  } catch {
    return undefined;
  }
}

const FIRST_LINE = /^[^\n]*/;
const LOG_START = /^\s*\{\s*"kind"\s*:\s*0\s*,\s*"v"\s*:\s*\{/;
const JSON_START = /^\s*\{\s*"(version|requesterUsername|responderUsername|sessionId|creationDate|initialLocation|requests)"\s*:/;

/** Whether a file's first bytes are a chat session: the whole state when it fits, else how VS Code starts one. */
function looksLikeSession(head: Buffer): boolean {
  const text = head.toString('utf8');
  const first = FIRST_LINE.exec(text)?.[0] ?? '';
  try {
    const value = JSON.parse(LOG_START.test(first) ? first : text) as { kind?: unknown; v?: unknown };
    return isChatSessionState(LOG_START.test(first) ? value.v : value);
  } catch {
    // Cut off by the head: only the start can tell.
    return (LOG_START.test(first) || JSON_START.test(text)) && text.includes('"requests"');
  }
}

export const vscodeChat: SourceFormat = {
  name: 'vscode-chat',
  sourceOfPath: (file) => (isVscodeChatFile(file) ? file : null),
  recognizes: (_source, head) => looksLikeSession(head),
  async read(file): Promise<Mapped> {
    const { state, skipped, unsettledRequest, tornLastLine } = readSessionState(file);
    const skip = (type: string): void => countSkip(skipped, type);
    // VS Code has created the file but not written a whole line of it yet.
    if (state === undefined) return { sessions: [], skipped, tornLastLine };
    const parsed = chatSession.safeParse(state);
    if (!parsed.success) throw new TapeFileError(file, 'is not a VS Code chat session (no requests in it)');
    const data = parsed.data;
    const sessionId = `vscode-chat:${data.sessionId ?? path.basename(file).replace(/\.jsonl?$/, '')}`;
    const entries: NewEntry[] = [];
    const children: MappedSession[] = [];
    let model: string | undefined;
    let lastSeq = 0;
    data.requests.forEach((raw, index) => {
      const r = chatRequest.safeParse(raw);
      if (!r.success) return skip('request/invalid');
      const req = r.data;
      const state = req.modelState?.value;
      if (state === RESPONSE_PENDING || state === RESPONSE_NEEDS_INPUT || index === unsettledRequest) return skip('request/in-progress');
      // Undone (a checkpoint restored): VS Code shows it no more and drops it with the next request.
      if (req.isHidden === true || (req.shouldBeRemovedOnSend !== undefined && req.shouldBeRemovedOnSend.afterUndoStop === undefined))
        return skip('request/undone');
      // The time a request was sent orders it among the session's messages, before and after a request
      // removed from the file (an edited prompt resent): those already on the tape stay where they were.
      const orderSeq = Math.max(2 * (req.timestamp ?? 0), lastSeq + 2);
      lastSeq = orderSeq;
      const mapped = requestEntries(req, { sessionId, source: file, orderSeq, timestamp: req.timestamp ?? data.creationDate }, skip);
      entries.push(...mapped.entries);
      children.push(...mapped.children);
      model = req.modelId ?? model;
    });
    if (data.pendingRequests !== undefined && data.pendingRequests.length > 0) countSkip(skipped, 'request/queued', data.pendingRequests.length);
    if (entries.length === 0) return { sessions: [], skipped, tornLastLine };
    const cwd = folderOfUri(data.workingDirectory) ?? workspaceFolderOf(file);
    const title = data.customTitle ?? data.computedTitle;
    const extra = {
      ...(data.responderUsername ? { responderUsername: data.responderUsername } : {}),
      ...(data.initialLocation ? { location: data.initialLocation } : {}),
    };
    const meta = sessionMetaEntry(sessionId, { agent: 'vscode-chat', model, cwd, source: file, title }, data.creationDate, extra);
    return { sessions: [{ sessionId, entries: [meta, ...entries] }, ...children], skipped, tornLastLine };
  },
};
