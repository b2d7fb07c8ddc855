/**
 * What the agent's tools may do to a workspace. Paths are workspace-relative (or absolute inside
 * the root); every adapter confines them to its root. The Node adapter serves the CLI and the
 * tests; an editor can provide its own (edits through a WorkspaceEdit, say) without touching the tools.
 */
export type EntryKind = 'file' | 'directory' | 'other';

export interface DirEntry {
  readonly name: string;
  readonly kind: EntryKind;
}

/** The start of a file: `bytes` is all of it when its length equals `size`. */
export interface FilePrefix {
  readonly bytes: Uint8Array;
  /** The whole file's size in bytes. */
  readonly size: number;
}

export interface FileStat {
  readonly kind: EntryKind;
  readonly size: number;
}

/** A capped list: `truncated` says there were more than `limit` items. */
export interface Capped<T> {
  readonly items: T[];
  readonly truncated: boolean;
}

export interface TextMatch {
  /** Workspace-relative, `/`-separated. */
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
}

export interface SearchOptions {
  /** A glob over workspace-relative paths that limits the files searched. */
  readonly include?: string;
  readonly limit: number;
  /** Ends the search (the turn was cancelled). */
  readonly signal?: AbortSignal;
}

export interface CommandOptions {
  readonly timeoutMs: number;
  /** stdout and stderr together are kept up to this many bytes. */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

export interface CommandResult {
  /** null when the process was killed. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** stdout and stderr interleaved in arrival order. */
  readonly output: string;
  readonly truncated: boolean;
  /**
   * Processes the command started, other than its shell, that were still running when it ended
   * (exited, timed out or was cancelled) and were killed then, wherever they had gone. Counted on
   * Linux; elsewhere the process group is killed but what left it cannot be found, so this stays 0.
   */
  readonly killedLeftovers: number;
  /** A process nothing could reach still held the output open; it was closed without waiting for it. */
  readonly outputDetached: boolean;
}

export interface WorkspacePort {
  /** At most `maxBytes` from the start of a regular file; no more is read (a FIFO or device is refused). */
  readFile(path: string, maxBytes: number): Promise<FilePrefix>;
  listDir(path: string): Promise<DirEntry[]>;
  /** Files (not directories) whose workspace-relative path matches the glob; .gitignore respected. */
  findFiles(pattern: string, limit: number): Promise<Capped<string>>;
  /** Lines matching `pattern` in text files; .gitignore respected. */
  searchText(pattern: RegExp, options: SearchOptions): Promise<Capped<TextMatch>>;
  /** Creates the file (and its parent directories) or overwrites it. */
  writeFile(path: string, content: string): Promise<void>;
  /** undefined when nothing is at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Runs through the platform shell in the workspace root. */
  runCommand(command: string, options: CommandOptions): Promise<CommandResult>;
}
