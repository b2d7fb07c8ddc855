import { realpathSync } from 'fs';
import * as path from 'path';
import { checkpointStoreOf } from '../../agent/checkpoints/workspaceCheckpoints';
import { MAX_FILE_READ_BYTES } from '../../agent/tools/tool';
import { confine, OutsideWorkspaceError } from '../../agent/workspace/confine';
import { agentTraceRecords, type BlamedFile } from '../../blame/agentTrace';
import { TapeBlame } from '../../blame/tapeBlame';
import { workspaceCommit } from '../../blame/workspaceCommit';
import { TapeFileError } from '../../store/errors';
import { writeFileDurably } from '../../store/fsutil';
import { readRegularFile } from '../../store/safeRead';
import { fileLines } from '../../tape/blame/fileLines';
import { safeJsonText } from '../../tape/safeJsonText';
import { parseArgs, str, UsageError } from '../args';
import type { Io } from '../output';
import { workspaceOf } from './run';
import { withTape } from './withTape';

/**
 * `trace`: Agent Trace records (src/blame/agentTrace.ts) of the lines the tape's sessions wrote in
 * the workspace's files as they are now, one JSON line per session, to `--out` (a new file) or
 * stdout. Every file some edit on the tape names is blamed; one that is gone, is not a regular
 * file, is too big or leads out of the workspace is passed over.
 */
export async function traceCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['workspace', 'out'], repeated: ['session'], positional: ['tape'] });
  const tapeFile = path.resolve(p.positional[0]);
  const root = realpathSync(workspaceOf(p));
  const out = str(p, 'out');
  const git = await workspaceCommit(root);
  const records = await withTape(tapeFile, async (tape) => {
    const sessions = p.lists.get('session') ?? null;
    for (const s of sessions ?? []) if (tape.store.headEntryId(s) === 0) throw new UsageError(`the tape has no session ${s}`);
    const blame = new TapeBlame(tape.store, { workspaceRoot: root, checkpointsDir: checkpointStoreOf(tapeFile) });
    const files: BlamedFile[] = [];
    for (const rel of blame.touchedPaths().sort()) {
      const text = await currentText(root, rel);
      if (text !== null) files.push({ path: rel, lines: fileLines(text), ranges: await blame.blame(rel, text) });
    }
    return agentTraceRecords({ tapeFile, git, files }, sessions === null ? null : new Set(sessions));
  });
  const jsonl = records.map((r) => `${safeJsonText(JSON.stringify(r))}\n`).join('');
  if (out === undefined) io.data(jsonl);
  else await writeFileDurably(out, [Buffer.from(jsonl, 'utf8')], true);
  return 0;
}

/** The file as it is now; null when there is no such regular file of the workspace to read. */
async function currentText(root: string, rel: string): Promise<string | null> {
  try {
    const { real } = await confine(root, rel);
    return (await readRegularFile(real, MAX_FILE_READ_BYTES, 'a traced file')).toString('utf8');
  } catch (e) {
    if (e instanceof OutsideWorkspaceError || e instanceof TapeFileError) return null;
    throw e;
  }
}
