import { SESSION_META, VSCODE_CHAT_EDIT_EVENT, WORKSPACE_CHECKPOINT } from '../tape/entryNames';
import * as z from 'zod';
import { editsOfEntry } from '../tape/blame/editCalls';
import type { Entry } from '../tape/entry';
import { checkpointOf } from '../tape/workspaceCheckpoint';
import { sessionAgentOf } from '../store/sessionAgent';
import type { TapeStore } from '../store/tapeStore';
import { workspacePathOf } from './editPath';

/** An entry of the tape, by its place. */
export interface EntryRef {
  sessionId: string;
  entryId: number;
  createdAt: number;
}

/**
 * Something on the tape that changed a file: the `edit`-th FileEdit `editsOfEntry` gives for an
 * entry (a call that succeeded, or an agent's edit event), or one side of a turn of our agent that
 * changed the file (its `turn_start` or `turn_end` checkpoint). Only where to find it is kept, not
 * what it wrote, so the index grows with the number of edits and not with their size.
 */
export type IndexedChange =
  | { kind: 'edit'; ref: EntryRef; agent: string; edit: number; path: string; movedTo: string | null }
  | {
      kind: 'checkpoint';
      ref: EntryRef;
      /** The turn's `turn_end` checkpoint entry: the origin of both sides. */
      turnEntryId: number;
      side: 'start' | 'end';
      checkpointId: string;
      change: 'added' | 'modified' | 'deleted';
      path: string;
    };

interface PendingCall {
  ref: EntryRef;
  agent: string;
  edits: { edit: number; path: string; movedTo: string | null }[];
}

/** What reading a session so far left to know for the entries after it. */
interface SessionScan {
  head: number;
  /** The folder the session says it runs in, from its last `session/meta` read. */
  cwd: string | null;
  /** Edit calls whose result has not been read yet, by tool call id. */
  pending: Map<string, PendingCall>;
  /** Each turn's `turn_start` checkpoint, until its `turn_end` one. */
  turnStarts: Map<string, { ref: EntryRef; checkpointId: string }>;
}

const sessionMetaCwd = z.looseObject({ cwd: z.string().min(1).optional() });

/** Entry ids whose tool calls are read at once: a session's call payloads are never all held together. */
const CALLS_WINDOW = 1000;

/**
 * The tape's edits by workspace file, for one workspace. Built from the tool calls, the events
 * that move or make edits, and the status of the edit calls' results, then brought up to date from
 * each session's last read entry; a new store generation (a reload, a deleted session) starts over.
 */
export class EditIndex {
  private generation = -1;
  private sessions = new Map<string, SessionScan>();
  private byPath = new Map<string, IndexedChange[]>();

  constructor(
    private readonly store: TapeStore,
    private readonly workspaceRoot: string,
  ) {}

  /** The changes of `relPath`, and those moved into it from another path, in the order they were read. */
  changesOf(relPath: string): readonly IndexedChange[] {
    this.update();
    return this.byPath.get(relPath) ?? [];
  }

  /** Every workspace path some change on the tape names. */
  paths(): string[] {
    this.update();
    return [...this.byPath.keys()];
  }

  private update(): void {
    if (this.generation !== this.store.generation()) {
      this.generation = this.store.generation();
      this.sessions = new Map();
      this.byPath = new Map();
    }
    for (const summary of this.store.sessions()) {
      let scan = this.sessions.get(summary.sessionId);
      if (scan === undefined) this.sessions.set(summary.sessionId, (scan = { head: 0, cwd: null, pending: new Map(), turnStarts: new Map() }));
      if (summary.headEntryId > scan.head) this.read(summary.sessionId, scan, summary.headEntryId);
    }
  }

  /**
   * Reads a session on from its last read entry up to `head`: its tool calls a window at a time
   * (every call must be asked for its edits), the few events that matter found by name, and, only
   * while an edit call waits for its result, the session's fold rows for the results' status.
   */
  private read(sessionId: string, scan: SessionScan, head: number): void {
    const agent = sessionAgentOf(this.store, sessionId);
    const from = scan.head + 1;
    const events = [SESSION_META, VSCODE_CHAT_EDIT_EVENT, WORKSPACE_CHECKPOINT]
      .flatMap((name) => this.store.entries(sessionId, { kind: 'event', name, fromEntryId: from, toEntryId: head }))
      .sort((a, b) => a.entryId - b.entryId);
    let next = 0;
    // Events in entry order with the calls: a call's path is read with the cwd in force at it.
    const eventsBefore = (entryId: number): void => {
      for (; next < events.length && events[next].entryId < entryId; next++) this.readEvent(agent, events[next], scan);
    };
    for (let start = from; start <= head; start += CALLS_WINDOW) {
      for (const call of this.store.entries(sessionId, { kind: 'tool_call', fromEntryId: start, toEntryId: Math.min(head, start + CALLS_WINDOW - 1) })) {
        eventsBefore(call.entryId);
        const toolCallId = (call.payload as { toolCallId?: unknown }).toolCallId;
        const pending = typeof toolCallId === 'string' ? this.pendingOf(agent, call, scan.cwd) : null;
        if (pending !== null) scan.pending.set(toolCallId as string, pending);
      }
    }
    eventsBefore(Infinity);
    if (scan.pending.size > 0)
      for (const row of this.store.foldRows(sessionId, scan.head)) {
        if (row.entryId > head) break;
        const pending = row.kind === 'tool_result' && row.toolCallId !== null ? scan.pending.get(row.toolCallId) : undefined;
        // A stand-in crash repair wrote says nothing of what the call did; a recorded result may follow.
        if (pending === undefined || row.interrupted) continue;
        scan.pending.delete(row.toolCallId as string);
        if (row.status === 'ok') this.addEdits(pending);
      }
    scan.head = head;
  }

  private readEvent(agent: string, event: Entry, scan: SessionScan): void {
    if (event.name === SESSION_META) {
      const meta = sessionMetaCwd.safeParse((event.payload as { data?: unknown }).data);
      if (meta.success && meta.data.cwd !== undefined) scan.cwd = meta.data.cwd;
    } else if (event.name === VSCODE_CHAT_EDIT_EVENT) {
      const edits = this.pendingOf(agent, event, scan.cwd);
      if (edits !== null) this.addEdits(edits);
    } else this.readCheckpoint(event, scan);
  }

  /** The call's edits of this workspace's files, or null when it made none. */
  private pendingOf(agent: string, call: Entry, cwd: string | null): PendingCall | null {
    const edits: PendingCall['edits'] = [];
    editsOfEntry(agent, call).forEach((edit, i) => {
      const at = workspacePathOf(edit.path, cwd, this.workspaceRoot);
      const movedTo = edit.movedTo === undefined ? null : workspacePathOf(edit.movedTo, cwd, this.workspaceRoot);
      if (at !== null || movedTo !== null) edits.push({ edit: i, path: at ?? '', movedTo });
    });
    return edits.length === 0 ? null : { ref: { sessionId: call.sessionId, entryId: call.entryId, createdAt: call.createdAt }, agent, edits };
  }

  private addEdits(call: PendingCall): void {
    for (const { edit, path, movedTo } of call.edits) {
      const change: IndexedChange = { kind: 'edit', ref: call.ref, agent: call.agent, edit, path, movedTo };
      if (path !== '') this.add(path, change);
      if (movedTo !== null && movedTo !== path) this.add(movedTo, change);
    }
  }

  private readCheckpoint(event: Entry, scan: SessionScan): void {
    const checkpoint = checkpointOf(event);
    if (checkpoint?.turnId === undefined) return;
    const ref = { sessionId: event.sessionId, entryId: event.entryId, createdAt: event.createdAt };
    if (checkpoint.reason === 'turn_start') scan.turnStarts.set(checkpoint.turnId, { ref, checkpointId: checkpoint.checkpointId });
    if (checkpoint.reason !== 'turn_end') return;
    const start = scan.turnStarts.get(checkpoint.turnId);
    if (start === undefined) return;
    scan.turnStarts.delete(checkpoint.turnId);
    for (const file of checkpoint.files) {
      // The checkpoint's paths are relative to the folder it was taken of: this one, or a checkout of it.
      const path = workspacePathOf(file.path, null, this.workspaceRoot);
      if (path === null) continue;
      const turn = { kind: 'checkpoint', turnEntryId: event.entryId, change: file.change, path } as const;
      this.add(path, { ...turn, ref: start.ref, side: 'start', checkpointId: start.checkpointId });
      this.add(path, { ...turn, ref, side: 'end', checkpointId: checkpoint.checkpointId });
    }
  }

  private add(path: string, change: IndexedChange): void {
    const list = this.byPath.get(path);
    if (list === undefined) this.byPath.set(path, [change]);
    else list.push(change);
  }
}
