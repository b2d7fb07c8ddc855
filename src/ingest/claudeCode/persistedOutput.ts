import * as fs from 'fs';
import * as path from 'path';
import { readRegularFileSync } from '../../store/safeRead';

/**
 * Claude Code keeps a tool's large output apart: the result it sends the model (and writes in the
 * transcript) is a `<persisted-output>` notice with a 2 KB preview, the whole output is in
 * `<session>/tool-results/<name>`. The notice's path is where the file was on the machine that
 * wrote it, so only its name is taken, and only a regular file that is really inside that session's
 * `tool-results/` is read: a record must not make us read anything else.
 */
const NOTICE = /^<persisted-output>\n[^\n]*saved to: ([^\n]+)\n/;
export const TOOL_RESULTS_DIR = 'tool-results';
/** Claude Code keeps outputs of many megabytes; past this the preview stays what the tape holds. */
export const PERSISTED_OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

/** What a result's text stands for: the whole output, a reason it stays the preview, or null when it is no notice. */
export type PersistedOutput = { output: string } | { missing: string } | null;

export function persistedOutputOf(text: string, sessionDir: string): PersistedOutput {
  const saved = NOTICE.exec(text)?.[1];
  if (saved === undefined) return null;
  const name = path.basename(saved);
  if (path.basename(path.dirname(saved)) !== TOOL_RESULTS_DIR || !/^[\w-][\w.-]*$/.test(name)) return { missing: 'persisted_output_elsewhere' };
  const dir = path.join(sessionDir, TOOL_RESULTS_DIR);
  const file = path.join(dir, name);
  try {
    // A link inside tool-results/ (or tool-results/ itself) pointing out of it is not followed.
    if (path.dirname(fs.realpathSync(file)) !== fs.realpathSync(dir)) return { missing: 'persisted_output_outside' };
    return { output: readRegularFileSync(file, PERSISTED_OUTPUT_MAX_BYTES, 'a Claude Code tool output').toString('utf8') };
  } catch {
    return { missing: 'persisted_output_unreadable' };
  }
}
