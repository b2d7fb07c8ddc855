import * as fs from 'fs';
import * as path from 'path';

// Subagent files are read with their parent session (TranscriptFormat.companions), not on their own.
const COMPANION_DIR = 'subagents';

/** Where the companions of a transcript (Claude Code's subagents of a session) are: `<session>/subagents/`. */
export const companionDirOf = (file: string): string => path.join(path.dirname(file), path.basename(file, '.jsonl'), COMPANION_DIR);

/** The transcript a `*.jsonl` file is read with: its session's file for a companion, else itself. */
export function ownerTranscriptOf(file: string): string {
  const dir = path.dirname(path.resolve(file));
  return path.basename(dir) === COMPANION_DIR ? `${path.dirname(dir)}.jsonl` : path.resolve(file);
}

/** The `*.jsonl` files under `dir`, recursively, in a stable (sorted) order, companions left out. */
export function transcriptFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== COMPANION_DIR) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(dir);
  return out;
}
