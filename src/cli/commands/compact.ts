import { OpenTape } from '../../agent/session/openTape';
import { TapeStore } from '../../store/tapeStore';
import { parseArgs, required } from '../args';
import type { Io } from '../output';
import { EXIT_INTERRUPTED, MODEL_FLAGS, modelFromFlags, withInterrupt } from '../modelFlags';
import { requireSession, requireSqliteTape } from './session';

/**
 * Compacts a session now: the model summarises the context in force into a `compaction/manual`
 * anchor, and the next turn starts from it. Prints the anchor's entry id.
 */
export async function compactCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: MODEL_FLAGS, switches: ['json'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  const model = modelFromFlags(p);
  requireSqliteTape('compact', file);

  const store = await TapeStore.open(file, { create: false });
  try {
    requireSession(store, sessionId);
    const session = new OpenTape(store).session(sessionId);
    const outcome = await withInterrupt((signal) => session.compact(model, signal));
    if ('error' in outcome) {
      io.err(`agent-tape: ${outcome.error}\n`);
      return outcome.error === 'compaction cancelled' ? EXIT_INTERRUPTED : 1;
    }
    const { entryId, name } = outcome.anchor;
    if (p.flags.has('json')) io.data(`${JSON.stringify({ type: 'compaction', sessionId, entryId, anchorName: name })}\n`);
    else io.out(`${entryId}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
