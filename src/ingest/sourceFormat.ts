import type * as fs from 'fs';
import type { FormatName, Mapped } from './format';

/**
 * A format whose source is not a file that only grows line by line: JSON files rewritten whole
 * (VS Code's serialised chats, Gemini CLI's recordings, Cline's task files), a mutation log that is
 * replayed from its start (VS Code's `chatSessions/*.jsonl`), a database another program writes
 * (opencode). Each run reads the whole source and maps all of it; provenance keys come from the
 * source's own ids, so the store's key dedup makes a run append only what is new. Sources are
 * only ever read, through safeRead (src/store/safeRead.ts), and never written.
 */
export interface SourceFormat {
  readonly name: FormatName;
  /**
   * The source `file` is part of when its path says so (a Cline task's `ui_messages.json` stands
   * for its task folder; a file of opencode's storage for the storage folder), else null. From the
   * path alone: it is asked of every file a folder walk or a watcher sees.
   */
  sourceOfPath(file: string): string | null;
  /** Whether a folder is one source of this format as a whole, by the entries it holds (opencode's storage folder). */
  recognizesFolder?(entries: readonly fs.Dirent[]): boolean;
  /** Whether a source named by the user, at a path that tells nothing, is this format's: from its first bytes. */
  recognizes(source: string, head: Buffer): boolean;
  /**
   * Everything the source holds now, as sessions of entries. A record of a type the format does not
   * know is counted in `skipped`, never fatal; a source that cannot be read or parsed at all is a
   * TapeFileError naming it.
   */
  read(source: string): Promise<Mapped>;
}
