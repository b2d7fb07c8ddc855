import { int, parseArgs, str } from '../args';
import { json, type Io } from '../output';
import { kindOf } from './log';
import { withTape } from './withTape';

export function searchCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'kind', 'limit'], switches: ['json'], positional: ['tape', 'query'] });
  const [file, query] = p.positional;
  const kind = kindOf(str(p, 'kind'));
  const options = { sessionId: str(p, 'session'), kinds: kind ? [kind] : undefined, limit: int(p, 'limit') };
  return withTape(file, (store) => {
    const hits = store.search(query, options);
    if (p.flags.has('json')) return json(io, hits), 0;
    for (const h of hits) io.out(`${h.sessionId} #${h.entryId} ${h.kind} ${h.name} (${h.score}): ${h.snippet}\n`);
    if (!hits.length) io.out('no matches\n');
    return 0;
  });
}
