import type { Database } from 'sql.js';
import type { NewEntry } from '../tape/entry';
import { foldAll, type FoldRow } from '../tape/fold';
import { interruptedResultEntry, unpairedToolCalls } from '../tape/toolPairs';

/**
 * Sessions with a tool call that has no result row at all: one pass over the tool-call index
 * (schema.ts), so a writable open of a large tape pays an index scan, not a fold of every session.
 * Only tool calls and results carry a tool_call_id.
 */
function sessionsWithUnansweredCalls(db: Database): string[] {
  const r = db.exec(`SELECT DISTINCT session_id FROM (
      SELECT session_id FROM entries WHERE tool_call_id IS NOT NULL
      GROUP BY session_id, message_id, tool_call_id HAVING max(kind = 'tool_result') = 0)`);
  return (r[0]?.values ?? []).map(([s]) => s as string);
}

/**
 * Crash repair (SPEC 2.5): the error results that close the tool calls a crash or a cancel left
 * without one, per session. A writable open appends them, so the next request sends real pairs;
 * their provenance keys make the repair write each one once. Only effective calls count: the
 * context never shows the others.
 */
export function interruptedCallRepairs(db: Database, foldRows: (sessionId: string) => FoldRow[]): Map<string, NewEntry[]> {
  const repairs = new Map<string, NewEntry[]>();
  for (const sessionId of sessionsWithUnansweredCalls(db)) {
    const calls = unpairedToolCalls(foldAll(foldRows(sessionId), { includePending: false }));
    if (calls.length) repairs.set(sessionId, calls.map(interruptedResultEntry));
  }
  return repairs;
}
