import { TURN_START, WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED } from '../tape/entryNames';
import type { SessionReads } from './sessionReads';
import type { Entry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import { checkpointOf, turnChanges, workspaceStates, type TurnChanges } from '../tape/workspaceCheckpoint';

/** What the transcript shows of a session's workspace checkpoints. */
export interface WorkspaceFacts {
  /** Per message id: the changes of the turn that message ends (its last message before the turn's `turn_end` checkpoint). */
  byMessage: ReadonlyMap<string, TurnChanges>;
  /** The first entry of the view from which a checkpoint stands for the workspace; null when none does. */
  checkpointsFrom: number | null;
}

const NONE: WorkspaceFacts = { byMessage: new Map(), checkpointsFrom: null };

interface Known {
  generation: number;
  head: number;
  /** The view's checkpoint and restore events read so far, and the `turn/start` each `turn_start` checkpoint stands from, in view order. */
  events: Entry[];
  facts: WorkspaceFacts;
}

const isWorkspaceRow = (r: FoldRow): boolean => r.kind === 'event' && (r.name === WORKSPACE_CHECKPOINT || r.name === WORKSPACE_RESTORED);

/**
 * The turns' file changes and where checkpoints begin, per session, through the core's own
 * `turnChanges` and `workspaceStates`. Only the workspace events are read (a few per turn, found by
 * name in the in-memory fold rows), each once: entries never change, so a session is extended
 * from where it was read up to, and read again only when the store is replaced.
 */
export class TurnFileChanges {
  private readonly sessions = new Map<string, Known>();

  constructor(private readonly store: SessionReads) {}

  of(sessionId: string): WorkspaceFacts {
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    let known = this.sessions.get(sessionId);
    if (known === undefined || known.generation !== generation || known.head > head) {
      known = { generation, head: 0, events: [], facts: NONE };
      this.sessions.set(sessionId, known);
    }
    if (known.head === head) return known.facts;
    const rows = this.store.foldRows(sessionId, 0);
    let grew = false;
    for (let i = known.head; i < head; i++) {
      if (!isWorkspaceRow(rows[i])) continue;
      const entry = this.store.requireEntry(sessionId, rows[i].entryId);
      // A `turn_start` checkpoint stands for the workspace from its turn's start: workspaceStates needs that entry too.
      const start = checkpointOf(entry)?.reason === 'turn_start' ? turnStartBefore(rows, entry.entryId) : null;
      if (start !== null && !known.events.some((e) => e.entryId === start)) known.events.push(this.store.requireEntry(sessionId, start));
      known.events.push(entry);
      grew = true;
    }
    known.head = head;
    if (grew) {
      known.events.sort((a, b) => a.entryId - b.entryId);
      known.facts = factsOf(known.events, rows);
    }
    return known.facts;
  }

  /** The messages that end a turn whose `turn_end` checkpoint is after `afterEntryId`: their items gained their changes. */
  endedAfter(sessionId: string, afterEntryId: number): string[] {
    return [...this.of(sessionId).byMessage].filter(([, turn]) => turn.entryId > afterEntryId).map(([messageId]) => messageId);
  }
}

function factsOf(events: readonly Entry[], rows: readonly FoldRow[]): WorkspaceFacts {
  const states = workspaceStates(events);
  const byMessage = new Map<string, TurnChanges>();
  for (const turn of turnChanges(events).values()) {
    const messageId = lastMessageBefore(rows, turn.entryId);
    if (messageId !== null) byMessage.set(messageId, turn);
  }
  return { byMessage, checkpointsFrom: states.length === 0 ? null : Math.min(...states.map((s) => s.fromEntryId)) };
}

/** The `turn/start` of the turn entry `entryId` is in: a session runs one turn at a time, so the last one before it. */
function turnStartBefore(rows: readonly FoldRow[], entryId: number): number | null {
  for (let i = entryId - 2; i >= 0; i--) if (rows[i].kind === 'event' && rows[i].name === TURN_START) return rows[i].entryId;
  return null;
}

/** The message of the last message row before `entryId` within its turn: the turn's last message, which ends it. */
function lastMessageBefore(rows: readonly FoldRow[], entryId: number): string | null {
  for (let i = entryId - 2; i >= 0; i--) {
    const r = rows[i];
    if (r.kind === 'message' && r.messageId !== null) return r.messageId;
    if (r.kind === 'event' && r.name === TURN_START) return null;
  }
  return null;
}
