/**
 * The address of a session's replay document (`agent-tape-replay:/<session>.tape-replay?<tape file>`):
 * the debug adapter names it as its frames' source and the extension renders it. Both sides build
 * and read it here, so the adapter needs no `vscode` to know which session a breakpoint is in.
 */
export const REPLAY_SCHEME = 'agent-tape-replay';
/** The document's extension, which gives it the language that accepts breakpoints. */
export const REPLAY_EXTENSION = '.tape-replay';

export function replayDocumentPath(tapeFile: string, sessionId: string): string {
  return `${REPLAY_SCHEME}:/${encodeURIComponent(sessionId)}${REPLAY_EXTENSION}?${encodeURIComponent(tapeFile)}`;
}

/**
 * The tape file and session of a replay document path, or null for any other path. VS Code may
 * hand the path back encoded differently than it was written, so both parts are decoded.
 */
export function parseReplayDocumentPath(path: string): { tapeFile: string; sessionId: string } | null {
  const m = new RegExp(`^${REPLAY_SCHEME}:/+([^?#]*)\\${REPLAY_EXTENSION}\\?([^#]*)$`).exec(path);
  if (m === null) return null;
  try {
    return { sessionId: decodeURIComponent(m[1]), tapeFile: decodeURIComponent(m[2]) };
  } catch {
    return null;
  }
}
