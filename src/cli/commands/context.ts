import { contextFrom, type ContextMessage, type ContextSelector } from '../../tape/context';
import { parseArgs, required, str } from '../args';
import { json, type Io } from '../output';
import { requireSession } from './session';
import { withTape } from './withTape';

function selectorOf(anchor: string | undefined): ContextSelector {
  if (anchor === undefined || anchor === 'last') return { kind: 'last' };
  if (anchor === 'none') return { kind: 'full' };
  return { kind: 'named', name: anchor };
}

/** `[role #entry]`, with the tool and call id on tool messages: parallel calls are told apart by id. */
function label(m: ContextMessage): string {
  const origin = m.source === 'synthetic' ? ', synthetic' : ` #${m.entryId}`;
  const tool = m.toolCallId === undefined ? '' : ` ${m.toolName ?? '?'} ${m.toolCallId}`;
  return `[${m.role}${origin}${tool}]`;
}

export function contextCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'anchor'], switches: ['json'], positional: ['tape'] });
  const sessionId = required(p, 'session');
  return withTape(p.positional[0], (tape) => {
    requireSession(tape.store, sessionId);
    const session = tape.session(sessionId);
    const ctx = contextFrom(session.folds, sessionId, selectorOf(str(p, 'anchor')), (id) => session.reader.requireEntry(sessionId, id));
    if (p.flags.has('json')) {
      json(io, { sessionId, anchorEntryId: ctx.anchorEntryId, messages: ctx.messages });
      return 0;
    }
    io.out(`${sessionId}: context from ${ctx.anchorEntryId === null ? 'the start' : `anchor #${ctx.anchorEntryId}`}, ${ctx.messages.length} messages\n`);
    for (const m of ctx.messages) io.out(`${label(m)} ${m.content}\n`);
    return 0;
  });
}
