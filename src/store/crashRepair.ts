import type { Database } from 'sql.js';
import type { Entry, NewEntry } from '../tape/entry';
import { foldAll, type FoldRow } from '../tape/fold';
import { isIngestedSession } from '../tape/ingestedSession';
import { rerunOfSession } from '../tape/rerunEntries';
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

/** What the repair reads of a session besides the index. */
export interface RepairReader {
  foldRows(sessionId: string): FoldRow[];
  sessionStart(sessionId: string): Entry | undefined;
  getEntry(sessionId: string, entryId: number): Entry | undefined;
}

/**
 * Crash repair (SPEC 2.5): the error results that close the tool calls a crash or a cancel left
 * without one, per session. A writable open appends them, so the next request sends real pairs;
 * their provenance keys make the repair write each one once. Only effective calls count: the
 * context never shows the others.
 *
 * Only sessions this program's agent writes are repaired, and their writer is gone: the lock lets
 * one process write a tape and refuses a second open in the same process, and the repair runs as
 * the open takes it, so no turn of ours is under way. An ingested session is never repaired: its
 * call may still be running in the other agent, whose transcript brings the result later. Nor is
 * a re-run fork: its calls are recorded, not run, and wait for a continued re-run to answer them
 * from the recording (or to run them, when asked), which an error result would forestall.
 */
export function interruptedCallRepairs(db: Database, reader: RepairReader): Map<string, NewEntry[]> {
  const repairs = new Map<string, NewEntry[]>();
  for (const sessionId of sessionsWithUnansweredCalls(db)) {
    const calls = unpairedToolCalls(foldAll(reader.foldRows(sessionId), { includePending: false }));
    if (calls.length === 0) continue;
    const keys = calls.map((c) => reader.getEntry(sessionId, c.entryId)?.provenanceKey ?? null);
    if (isIngestedSession(sessionId, reader.sessionStart(sessionId), keys) || isRerunFork(reader, sessionId)) continue;
    repairs.set(sessionId, calls.map(interruptedResultEntry));
  }
  return repairs;
}

const isRerunFork = (reader: RepairReader, sessionId: string): boolean => rerunOfSession((id) => reader.getEntry(sessionId, id)) !== null;
