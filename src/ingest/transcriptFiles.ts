import * as fs from 'fs';
import * as path from 'path';

// Subagent files are read with their parent session (TranscriptFormat.companions), not on their own.
export const COMPANION_DIR = 'subagents';

/** Where the companions of a transcript (Claude Code's subagents of a session) are: `<session>/subagents/`. */
export const companionDirOf = (file: string): string => path.join(path.dirname(file), path.basename(file, '.jsonl'), COMPANION_DIR);

/** How deep under `subagents/` a companion may be: a workflow's are in `workflows/<run>/`. */
export const COMPANION_DEPTH = 2;

/** What a compressed transcript's name ends with: Codex compresses a rollout idle for a week (`.jsonl.zst`). */
export const COMPRESSED = '.zst';

/** Whether a file name is a transcript's: `*.jsonl`, or one compressed (`*.jsonl.zst`). */
export const isTranscriptName = (name: string): boolean => name.endsWith('.jsonl') || name.endsWith(`.jsonl${COMPRESSED}`);

/**
 * The transcript a file is read as: itself, or null for a compressed one whose plain file is
 * beside it (its agent writes the compressed copy, then removes the plain one): one session, not two.
 */
export const preferredTranscript = (file: string): string | null =>
  file.endsWith(COMPRESSED) && fs.existsSync(file.slice(0, -COMPRESSED.length)) ? null : file;

/** The transcript a `*.jsonl` file is read with: its session's file for a companion, else itself. */
export function ownerTranscriptOf(file: string): string {
  let dir = path.dirname(path.resolve(file));
  const depth = /^agent-.+\.jsonl$/.test(path.basename(file)) ? COMPANION_DEPTH : 0;
  for (let up = 0; up <= depth && path.dirname(dir) !== dir; up++, dir = path.dirname(dir))
    if (path.basename(dir) === COMPANION_DIR) return `${path.dirname(dir)}.jsonl`;
  return path.resolve(file);
}
