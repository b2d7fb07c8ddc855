import * as path from 'path';

// Subagent files are read with their parent session (TranscriptFormat.companions), not on their own.
export const COMPANION_DIR = 'subagents';

/** Where the companions of a transcript (Claude Code's subagents of a session) are: `<session>/subagents/`. */
export const companionDirOf = (file: string): string => path.join(path.dirname(file), path.basename(file, '.jsonl'), COMPANION_DIR);

/** The transcript a `*.jsonl` file is read with: its session's file for a companion, else itself. */
export function ownerTranscriptOf(file: string): string {
  const dir = path.dirname(path.resolve(file));
  return path.basename(dir) === COMPANION_DIR ? `${path.dirname(dir)}.jsonl` : path.resolve(file);
}
