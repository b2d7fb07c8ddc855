import { BOOTSTRAP_KEY, SESSION_START } from './entryNames';
import { isSessionStart, type NewEntry } from './entry';

/** The bootstrap entry every session starts with (SPEC 2.2). */
export const sessionStartEntry = (sessionId: string): NewEntry => ({
  kind: 'anchor',
  name: SESSION_START,
  provenanceKey: BOOTSTRAP_KEY,
  payload: { name: SESSION_START, state: { sessionId } },
});

/** Where the stored entry that answers an appended entry comes from. */
export type Answer =
  /** The entry written from `writes[index]` (or the stored one its provenance key already names). */
  | { write: number }
  /** The session's existing session/start anchor: a session starts once, whatever key a later start carries. */
  | 'sessionStart';

export interface AppendPlan {
  /** The entries to write in order: a new session's bootstrap first, no second session/start. */
  writes: NewEntry[];
  /** One per appended entry, in order. */
  answers: Answer[];
}

export interface SessionState {
  /** The session has no entries yet. */
  isNew: boolean;
  /** The session has its session/start anchor (sessions imported from elsewhere may lack one). */
  hasSessionStart: boolean;
}

/**
 * The append rule of SPEC 2.2 as a pure function of what is appended and the session's state. A
 * new session gets its anchor before anything else (the caller's own session/start when it comes
 * first); every later session/start is answered with the one the session has, so replays and
 * retries of a session opener never start it twice.
 */
export function planAppend(sessionId: string, entries: readonly NewEntry[], { isNew, hasSessionStart }: SessionState): AppendPlan {
  const writes: NewEntry[] = [];
  const answers: Answer[] = [];
  // Index in `writes` of the session/start this append writes, if any.
  let start: number | null = null;
  if (isNew && entries.length && !isSessionStart(entries[0])) start = writes.push(sessionStartEntry(sessionId)) - 1;
  for (const e of entries) {
    if (!isSessionStart(e)) answers.push({ write: writes.push(e) - 1 });
    else if (start !== null) answers.push({ write: start });
    else if (hasSessionStart) answers.push('sessionStart');
    else answers.push({ write: (start = writes.push(e) - 1) });
  }
  return { writes, answers };
}
