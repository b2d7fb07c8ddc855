import { realpathSync } from 'fs';
import * as path from 'path';
import { checkpointStoreOf } from '../../agent/checkpoints/workspaceCheckpoints';
import { MAX_FILE_READ_BYTES } from '../../agent/tools/tool';
import { confine, OutsideWorkspaceError } from '../../agent/workspace/confine';
import { TapeBlame, type BlameRange } from '../../blame/tapeBlame';
import { readRegularFile } from '../../store/safeRead';
import { oneLine } from '../../tape/oneLine';
import { parseArgs, str, UsageError } from '../args';
import { json, type Io } from '../output';
import { workspaceOf } from './run';
import { withTape } from './withTape';

/** How much of a prompt a line of the human output shows. */
const PROMPT_CHARS = 60;

/**
 * `blame`: which session, turn and prompt of the tape last wrote each line of a workspace file, as
 * the file is now. The file is read through safeRead (a regular file, at most what our agent
 * reads) at its real path, which must be inside the workspace. `--json` prints the ranges covering
 * every line (or the lines of `--lines`), in order.
 */
export async function blameCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['workspace', 'lines'], switches: ['json'], positional: ['tape', 'file'] });
  const [tapeFile, fileArg] = p.positional;
  const root = realpathSync(workspaceOf(p));
  const wanted = linesOf(str(p, 'lines'));
  const file = await fileIn(root, fileArg);
  const text = (await readRegularFile(file.real, MAX_FILE_READ_BYTES, 'blame')).toString('utf8');
  const ranges = await withTape(tapeFile, (tape) =>
    new TapeBlame(tape.store, { workspaceRoot: root, checkpointsDir: checkpointStoreOf(path.resolve(tapeFile)) }).blame(file.rel, text),
  );
  const shown = wanted === null ? ranges : clip(ranges, wanted);
  if (p.flags.has('json')) {
    json(
      io,
      shown.map(({ startLine, endLine, origin }) => ({
        startLine,
        endLine,
        origin:
          origin === null
            ? null
            : {
                sessionId: origin.sessionId,
                entryId: origin.entryId,
                agent: origin.agent,
                model: origin.model,
                turn: origin.turn,
                prompt: origin.prompt,
                at: origin.at,
              },
      })),
    );
    return 0;
  }
  const width = Math.max(0, ...shown.map((r) => `${r.startLine}-${r.endLine}`.length));
  for (const { startLine, endLine, origin } of shown) {
    const lines = `${startLine}-${endLine}`.padEnd(width);
    if (origin === null) {
      io.out(`${lines}  (no agent on the tape wrote these lines)\n`);
      continue;
    }
    const turn = origin.turn === null ? 'no prompt' : `turn ${origin.turn}`;
    const at = origin.at.slice(0, 16).replace('T', ' ');
    const title = origin.sessionTitle ?? origin.sessionId;
    // A session titled by its first prompt would show the same words twice on its first turn.
    const prompt = origin.prompt === null || origin.prompt === title ? '' : `  ${oneLine(origin.prompt, PROMPT_CHARS)}`;
    io.out(`${lines}  ${origin.agent}  ${oneLine(title, PROMPT_CHARS)}  ${turn}  ${at}${prompt}\n`);
  }
  return 0;
}

/** The file's real path and its place in the workspace; a file outside it (or reached through a link leading out) is a usage error. */
async function fileIn(root: string, file: string): Promise<{ real: string; rel: string }> {
  try {
    const confined = await confine(root, path.resolve(file));
    if (confined.rel === '.') throw new UsageError(`${file} is the workspace folder, not a file in it`);
    return confined;
  } catch (e) {
    if (e instanceof OutsideWorkspaceError) throw new UsageError(`${file} is not a file of the workspace ${root} (--workspace names another folder)`);
    throw e;
  }
}

/** `--lines A-B` (from 1, A <= B); null when not given. */
function linesOf(value: string | undefined): { from: number; to: number } | null {
  if (value === undefined) return null;
  const m = /^(\d{1,9})-(\d{1,9})$/.exec(value);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (m === null || from < 1 || to < from) throw new UsageError(`--lines must be A-B with 1 <= A <= B, got ${JSON.stringify(value)}`);
  return { from, to };
}

/** The ranges of lines `from`..`to`, cut to them; lines past the file's end are refused. */
function clip(ranges: readonly BlameRange[], { from, to }: { from: number; to: number }): BlameRange[] {
  const last = ranges.length === 0 ? 0 : ranges[ranges.length - 1].endLine;
  if (from > last) throw new UsageError(`--lines ${from}-${to}: the file has ${last} line${last === 1 ? '' : 's'}`);
  return ranges
    .filter((r) => r.endLine >= from && r.startLine <= to)
    .map((r) => ({ ...r, startLine: Math.max(r.startLine, from), endLine: Math.min(r.endLine, to) }));
}
