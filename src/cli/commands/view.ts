import { parseArgs, required } from '../args';
import { json, type Io } from '../output';
import { contentOf, requireSession } from './session';
import { withTape } from './withTape';

export function viewCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session'], switches: ['pending', 'json'], positional: ['tape'] });
  const sessionId = required(p, 'session');
  return withTape(p.positional[0], (tape) => {
    requireSession(tape.store, sessionId);
    // A fork's view reads its parent through up to the fork point.
    const session = tape.session(sessionId);
    const view = session.view({ includePending: p.flags.has('pending') });
    const messages = view.messages.map((m) => ({ ...m, content: contentOf(session.reader, sessionId, m.entryId) }));
    if (p.flags.has('json')) {
      json(io, { sessionId, headEntryId: view.headEntryId, messages, toolCalls: view.toolCalls, toolResults: view.toolResults, anchors: view.anchors });
      return 0;
    }
    io.out(`${sessionId} at #${view.headEntryId}: ${messages.length} messages, ${view.toolCalls.length} tool calls, ${view.anchors.length} anchors\n`);
    for (const m of messages) io.out(`#${m.entryId} ${m.role}${m.status === 'sent' ? '' : ` (${m.status})`}: ${m.content}\n`);
    return 0;
  });
}
