import type { ComparedSession } from '../../tape/comparison/sessionComparison';
import type { OpenTape } from './openTape';

/**
 * One side of compareSessions read from an open tape: its effective view and where each position
 * is stored, so a fork's copy of its parent's prefix counts as the same entries. The caller checks
 * that the session exists (the CLI and the extension word that differently).
 */
export function comparedSessionOf(tape: OpenTape, sessionId: string): ComparedSession {
  const session = tape.session(sessionId);
  return {
    sessionId,
    entries: session.entries(),
    view: session.view({ includePending: false }),
    origin: (entryId) => tape.reader.origin(sessionId, entryId),
  };
}
