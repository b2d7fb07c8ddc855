import * as path from 'path';
import { sourceOfPath } from './detect';
import { listDir } from './sourceFiles';
import { COMPANION_DIR, ownerTranscriptOf } from './transcriptFiles';

/** How many entries a folder walk looks at before it stops: a home folder handed over by mistake ends. */
const WALK_MAX_ENTRIES = 200_000;

/**
 * The sources under `dir`, recursively, in a stable order: each a source format knows by its path
 * (a file of it stands for the whole source, listed once), and every other `*.jsonl` file (a Claude
 * Code or Codex transcript, perhaps). Symbolic links are not followed.
 */
export function sourcesUnder(dir: string): string[] {
  const out = new Set<string>();
  let seen = 0;
  const walk = (d: string): void => {
    for (const e of listDir(d)) {
      if (++seen > WALK_MAX_ENTRIES) return;
      const p = path.join(d, e.name);
      const source = e.isFile() || e.isDirectory() ? sourceOfPath(p) : null;
      if (source !== null) out.add(source.source);
      else if (e.isDirectory() && e.name !== COMPANION_DIR) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.add(p);
    }
  };
  walk(dir);
  return [...out];
}

/**
 * The source to ingest again when `file` changed: the whole source a source format's file belongs
 * to, the parent session's transcript for a Claude Code subagent file, the file itself for any
 * other `*.jsonl`; null for a file that is none of these.
 */
export function sourceOfChange(file: string): string | null {
  const source = sourceOfPath(file);
  if (source !== null) return source.source;
  return file.endsWith('.jsonl') ? ownerTranscriptOf(file) : null;
}
