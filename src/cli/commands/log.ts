import { jsonlLine } from '../../store/jsonl';
import { KINDS, type Kind } from '../../tape/entry';
import { oneLine } from '../../tape/oneLine';
import { int, parseArgs, str, UsageError } from '../args';
import type { Io } from '../output';
import { withTape } from './withTape';

/** A payload shown in the human listing is cut here; --json has it whole. */
const PAYLOAD_LINE_MAX = 100;

export function kindOf(v: string | undefined): Kind | undefined {
  if (v !== undefined && !(KINDS as readonly string[]).includes(v)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')}, got ${JSON.stringify(v)}`);
  return v as Kind | undefined;
}

export function logCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'kind', 'name', 'from', 'to'], switches: ['json'], positional: ['tape'] });
  const filter = { kind: kindOf(str(p, 'kind')), name: str(p, 'name'), fromEntryId: int(p, 'from'), toEntryId: int(p, 'to') };
  return withTape(p.positional[0], ({ store }) => {
    for (const e of store.rawEntries(str(p, 'session') ?? null, filter)) {
      if (p.flags.has('json')) io.data(jsonlLine(e));
      else io.out(`${e.sessionId} #${e.entryId} ${e.kind} ${e.name} ${oneLine(e.payload, PAYLOAD_LINE_MAX)}\n`);
    }
    return 0;
  });
}
