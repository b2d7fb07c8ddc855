import type { TapeStore } from '../store/tapeStore';

/** Who wrote a line: the entry that last wrote it and what the tape says around it. */
export interface LineOrigin {
  sessionId: string;
  /** The edit's tool call (or agent edit event), or our agent's checkpoint for a turn's other changes. */
  entryId: number;
  /** The session's agent: an ingest format name (`claude-code`, `codex`, …) or `agent-tape`. */
  agent: string;
  model: string | null;
  /** The turn within the session, from 1 (the user prompts before the edit); null if none. */
  turn: number | null;
  /** That turn's user prompt, as written (the caller shortens it for display). */
  prompt: string | null;
  /** When the edit was recorded, ISO 8601. */
  at: string;
  sessionTitle: string | null;
  /** The model request whose answer made the edit (its `view/assembled` entry), when recorded. */
  requestEntryId: number | null;
}

/** Lines `startLine`..`endLine` (from 1, inclusive) of the file as it is now. */
export interface BlameRange {
  startLine: number;
  endLine: number;
  origin: LineOrigin | null;
}

export interface TapeBlameOptions {
  /** The workspace folder (its real path): edits are placed relative to it. */
  workspaceRoot: string;
  /** Our agent's checkpoint store beside the tape, or null when there is none. */
  checkpointsDir?: string | null;
}

/**
 * Agent blame of a workspace's files from one tape: every agent's edits of a file, followed
 * through later changes to the file as it is now.
 */
export class TapeBlame {
  constructor(
    readonly store: TapeStore,
    readonly options: TapeBlameOptions,
  ) {}

  /** Whether any edit on the tape may touch `relPath` (workspace-relative, `/`-separated). */
  touches(relPath: string): boolean {
    void relPath;
    throw new Error('TapeBlame.touches: not built yet');
  }

  /** Ranges covering every line of `text` (the file `relPath` as it is now), in order. */
  blame(relPath: string, text: string, signal?: AbortSignal): Promise<BlameRange[]> {
    void relPath;
    void text;
    void signal;
    return Promise.reject(new Error('TapeBlame.blame: not built yet'));
  }
}
