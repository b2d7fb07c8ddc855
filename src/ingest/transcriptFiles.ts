import * as path from 'path';

// Subagent files are read with their parent session (TranscriptFormat.companions), not on their own.
export const COMPANION_DIR = 'subagents';

/** Where the companions of a transcript (Claude Code's subagents of a session) are: `<session>/subagents/`. */
export const companionDirOf = (file: string): string => path.join(path.dirname(file), path.basename(file, '.jsonl'), COMPANION_DIR);

/** How deep under `subagents/` a companion may be: a workflow's are in `workflows/<run>/`. */
export const COMPANION_DEPTH = 2;

/** The transcript a `*.jsonl` file is read with: its session's file for a companion, else itself. */
export function ownerTranscriptOf(file: string): string {
  let dir = path.dirname(path.resolve(file));
  const depth = /^agent-.+\.jsonl$/.test(path.basename(file)) ? COMPANION_DEPTH : 0;
  for (let up = 0; up <= depth && path.dirname(dir) !== dir; up++, dir = path.dirname(dir))
    if (path.basename(dir) === COMPANION_DIR) return `${path.dirname(dir)}.jsonl`;
  return path.resolve(file);
}
