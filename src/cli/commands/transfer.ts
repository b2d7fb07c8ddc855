import { exportJsonl, importJsonl } from '../../store/tapeFile';
import { parseArgs } from '../args';
import type { Io } from '../output';

export async function importCommand(args: string[], io: Io): Promise<number> {
  const [src, dst] = parseArgs(args, { positional: ['src.tape.jsonl', 'dst.tape.sqlite'] }).positional;
  const { entries } = await importJsonl(src, dst);
  io.out(`imported ${entries} entries into ${dst}\n`);
  return 0;
}

export async function exportCommand(args: string[], io: Io): Promise<number> {
  const [src, dst] = parseArgs(args, { positional: ['src.tape.sqlite', 'dst.tape.jsonl'] }).positional;
  const { entries } = await exportJsonl(src, dst);
  io.out(`exported ${entries} entries to ${dst}\n`);
  return 0;
}
