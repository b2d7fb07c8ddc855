import { selectContext, type ContextSelector } from '../../tape/context';
import { parseArgs, required, str } from '../args';
import { json, type Io } from '../output';
import { entryOrThrow, requireSession } from './session';
import { withTape } from './withTape';

function selectorOf(anchor: string | undefined): ContextSelector {
  if (anchor === undefined || anchor === 'last') return { kind: 'last' };
  if (anchor === 'none') return { kind: 'full' };
  return { kind: 'named', name: anchor };
}

export function contextCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'anchor'], switches: ['json'], positional: ['tape'] });
  const sessionId = required(p, 'session');
  return withTape(p.positional[0], (store) => {
    requireSession(store, sessionId);
    const ctx = selectContext(store.foldRows(sessionId, 0), selectorOf(str(p, 'anchor')), (id) => entryOrThrow(store, sessionId, id));
    const messages = ctx.messages.map((m) => ({ role: m.role, source: m.source, entryId: m.entryId, content: m.content }));
    if (p.flags.has('json')) {
      json(io, { sessionId, anchorEntryId: ctx.anchorEntryId, messages });
      return 0;
    }
    io.out(`${sessionId}: context from ${ctx.anchorEntryId === null ? 'the start' : `anchor #${ctx.anchorEntryId}`}, ${messages.length} messages\n`);
    for (const m of messages) io.out(`[${m.role}${m.source === 'synthetic' ? ', synthetic' : ` #${m.entryId}`}] ${m.content}\n`);
    return 0;
  });
}
