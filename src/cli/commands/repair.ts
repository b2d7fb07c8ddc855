import { repairTape } from '../../store/repair';
import { formatOf } from '../../store/tapeFile';
import { parseArgs, UsageError } from '../args';
import { json, type Io } from '../output';

export async function repairCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { switches: ['json'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  if (formatOf(file) !== 'sqlite') throw new UsageError(`repair works on *.tape.sqlite files (their journal), not ${file}`);
  const r = await repairTape(file);
  if (p.flags.has('json')) return (json(io, r), 0);
  const kept = `${r.records} records (${r.recordBytes} bytes)`;
  switch (r.status) {
    case 'healthy':
      io.out(`${r.journal} is not damaged (${kept}); nothing was changed\n`);
      break;
    case 'torn':
      io.out(
        `${r.journal} is not damaged in the middle: it ends with a torn record that opening the tape drops (${r.tornBytes} bytes, after ${kept}); nothing was changed\n`,
      );
      break;
    case 'repaired':
      io.out(`${r.journal} ${r.damage}\nkept ${kept}; set aside ${r.setAsideBytes} bytes (from the damage to the end of the records) in ${r.setAsideFile}\n`);
      break;
  }
  return 0;
}
