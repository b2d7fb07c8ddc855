import type { Database } from 'sql.js';
import type { Entry, NewEntry } from '../tape/entry';
import { foldAll, type FoldRow } from '../tape/fold';
import { isIngestedSession } from '../tape/ingestedSession';
import { rerunOfSession } from '../tape/evaluation/rerunEntries';
import { interruptedResultEntry, unpairedToolCalls } from '../tape/toolPairs';

/**
 * Sessions with a tool call that has no result row at all. Only sessions that grew since the last
 * repair looked at them are read (their summary's `calls_checked_head`, schema.ts), each through
 * the tool-call index: a writable open of a large tape reads what changed since, not every tool
 * row. Only tool calls and results carry a tool_call_id.
 */
function sessionsWithUnansweredCalls(db: Database): string[] {
  const grown = (db.exec('SELECT session_id FROM sessions WHERE head_entry_id > calls_checked_head ORDER BY first_id')[0]?.values ?? []).map(
    ([s]) => s as string,
  );
  const unanswered = db.prepare(`SELECT 1 FROM entries WHERE session_id = ? AND tool_call_id IS NOT NULL
    GROUP BY message_id, tool_call_id HAVING max(kind = 'tool_result') = 0 LIMIT 1`);
  try {
    return grown.filter((sessionId) => {
      unanswered.bind([sessionId]);
      const found = unanswered.step();
      unanswered.reset();
      return found;
    });
  } finally {
    unanswered.free();
  }
}

/**
 * Records that every session was looked at up to its head now: called once the repairs found are
 * on the tape. Not journaled: after a crash the snapshot's older marks make the next open look again.
 */
export function markCallsChecked(db: Database): void {
  db.run('UPDATE sessions SET calls_checked_head = head_entry_id WHERE head_entry_id > calls_checked_head');
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
