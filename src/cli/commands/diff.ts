import type { OpenTape } from '../../agent/session/openTape';
import { comparedSessionOf } from '../../agent/session/comparedSession';
import { compareSessions, type ComparedSession } from '../../tape/comparison/sessionComparison';
import { sessionComparisonText } from '../../tape/comparison/sessionComparisonText';
import { parseArgs } from '../args';
import { json, type Io } from '../output';
import { requireSession } from './session';
import { withTape } from './withTape';

function sideOf(tape: OpenTape, sessionId: string): ComparedSession {
  requireSession(tape.store, sessionId);
  return comparedSessionOf(tape, sessionId);
}

/** `agent-tape diff <tape> A B [--json]`: read-only; the JSON is compareSessions' result (src/tape/comparison/sessionComparison.ts). */
export function diffCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { switches: ['json'], positional: ['tape', 'A', 'B'] });
  const [file, a, b] = p.positional;
  return withTape(file, (tape) => {
    const result = compareSessions(sideOf(tape, a), sideOf(tape, b));
    if (p.flags.has('json')) json(io, result);
    else io.out(sessionComparisonText(a, b, result));
    return 0;
  });
}
