import { int, parseArgs, str } from '../args';
import { json, type Io } from '../output';
import { kindOf } from './log';
import { withTape } from './withTape';

export function searchCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'kind', 'limit'], switches: ['json'], positional: ['tape', 'query'] });
  const [file, query] = p.positional;
  const kind = kindOf(str(p, 'kind'));
  const sessionId = str(p, 'session');
  const options = { kinds: kind ? [kind] : undefined, limit: int(p, 'limit') };
  return withTape(file, (tape) => {
    // Within a session, a fork's search reads its parent through up to the fork point.
    const hits = sessionId === undefined ? tape.store.search(query, options) : tape.session(sessionId).reader.search(query, { ...options, sessionId });
    if (p.flags.has('json'))
      return (
        json(
          io,
          hits.map(({ sessionId, entryId, kind, name, score, snippet }) => ({ sessionId, entryId, kind, name, score, snippet })),
        ),
        0
      );
    for (const h of hits) io.out(`${h.sessionId} #${h.entryId} ${h.kind} ${h.name} (${h.score}): ${h.snippet}\n`);
    if (!hits.length) io.out('no matches\n');
    return 0;
  });
}
