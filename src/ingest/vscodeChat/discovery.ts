import * as fs from 'fs';
import * as path from 'path';
import { openRegularSync, readUpToSync } from '../../store/safeRead';
import { promptLine, type AgentDiscovery, type DiscoveredSession } from '../agentDiscovery';
import { listDir } from '../sourceFiles';
import { chatSession } from './chatData';
import { replayMutationLog } from './mutationLog';

/**
 * VS Code's chat sessions of this window's workspace: every file of `<workspaceStorage>/chatSessions/`
 * (workspaceStorage is this window's own folder, so every session there is the workspace's).
 */

/** How much of a session file is read to describe it: a log's first lines hold the title (set early in the state) and the first request. */
const HEAD_BYTES = 256 * 1024;

const sessionsDir = (workspaceStorage: string): string => path.join(workspaceStorage, 'chatSessions');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The session's title, else its first request's message, from the state at the head of the file. */
function describe(state: unknown): string | null {
  const s = chatSession.safeParse(state);
  if (!s.success) return null;
  const title = s.data.customTitle ?? s.data.computedTitle;
  if (title !== undefined && title.trim() !== '') return promptLine(title);
  for (const r of s.data.requests) {
    const message = isObject(r) ? r.message : undefined;
    const text = typeof message === 'string' ? message : isObject(message) && typeof message.text === 'string' ? message.text : '';
    if (text.trim() !== '') return promptLine(text);
  }
  return null;
}

/**
 * A session file's description, read from its head through safeRead (a FIFO or a device is never
 * waited on); null when it cannot be read. A log's whole lines in the head are replayed (a session
 * starts empty and gets its first request in a later line); a flat file is described when it fits.
 */
function readHead(file: string): { firstPrompt: string | null; modifiedAt: number } | null {
  try {
    const { fd, stat } = openRegularSync(file);
    try {
      const head = readUpToSync(fd, stat.size, HEAD_BYTES);
      let state: unknown;
      try {
        if (file.endsWith('.jsonl')) state = replayMutationLog(file, head).state;
        else if (stat.size <= HEAD_BYTES) state = JSON.parse(head.toString('utf8'));
      } catch {
        state = undefined;
      }
      return { firstPrompt: describe(state), modifiedAt: stat.mtimeMs };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

export const vscodeChatDiscovery: AgentDiscovery = {
  discover({ workspaceStorage }) {
    if (workspaceStorage === undefined) return [];
    const dir = sessionsDir(workspaceStorage);
    const names = new Set(listDir(dir).flatMap((e) => (e.isFile() ? [e.name] : [])));
    const found: DiscoveredSession[] = [];
    for (const name of names) {
      if (!/\.jsonl?$/.test(name)) continue;
      // VS Code reads a session's log when it has one; the flat file beside it is the same session before.
      if (name.endsWith('.json') && names.has(`${name}l`)) continue;
      const file = path.join(dir, name);
      const head = readHead(file);
      if (head !== null) found.push({ format: 'vscode-chat', file, ...head });
    }
    return found.sort((a, b) => b.modifiedAt - a.modifiedAt);
  },
  roots: ({ workspaceStorage }) => (workspaceStorage === undefined ? [] : [sessionsDir(workspaceStorage)]),
  sourceOf(file, { workspaceStorage }) {
    if (workspaceStorage === undefined || !/\.jsonl?$/.test(file)) return null;
    return path.dirname(path.resolve(file)) === path.resolve(sessionsDir(workspaceStorage)) ? file : null;
  },
};
