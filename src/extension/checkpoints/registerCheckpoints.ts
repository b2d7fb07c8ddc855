import * as path from 'path';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { SessionHandle } from '../../agent/session/sessionHandle';
import type { Entry } from '../../tape/entry';
import { oneLine } from '../../tape/oneLine';
import {
  checkpointOf,
  restoredOf,
  turnChanges,
  workspaceStates,
  type CheckpointData,
  type RestoredData,
  type TurnChanges,
} from '../../tape/workspaceCheckpoint';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';
import { CHECKPOINT_SCHEME, CheckpointDocuments, checkpointUri } from './checkpointDocuments';
import { restoreFiles, type RestoreSummary } from './restoreFiles';
import { checkpointRoot, openCheckpointStore } from './windowCheckpoints';

const sessionArg = z.string().check(z.minLength(1));
/** A position of the session's view. */
const entryArg = z.int().check(z.positive());
const checkpointArg = z.string().check(z.regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/));
/** What a script or a test says instead of answering: the plan needs no confirmation. */
const restoreGiven = z.optional(z.object({ confirmed: z.optional(z.boolean()) }));
const REWIND_CHOICES = ['conversation', 'files', 'both'] as const;
type RewindChoice = (typeof REWIND_CHOICES)[number];
const rewindGiven = z.optional(z.object({ choice: z.optional(z.enum(REWIND_CHOICES)), confirmed: z.optional(z.boolean()) }));

const REASON_LABEL = { turn_start: 'Before a turn changed files', turn_end: 'After a turn changed files', before_restore: 'Before a restore' } as const;
const short = (id: string): string => `${id.slice(0, 8)}…`;
const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;

/**
 * The workspace's file checkpoints in VS Code: the read-only documents of their files, and the
 * commands that restore, undo a turn, review a turn's changes, diff two checkpoints and rewind.
 * Every restore goes through `restoreFiles`. The argument arrays are what the chat's buttons and
 * the inspector send; each command returns what it did, for scripts and tests.
 */
export function registerCheckpoints(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const { tape } = deps;
  const run = reportingCommands(deps.log);

  /** A session of the workspace tape that has entries; throws naming it otherwise. */
  const sessionOf = async (sessionId: string): Promise<SessionHandle> => {
    const session = tape.tapeOf(await tape.open()).session(sessionId);
    if (session.head() === 0) throw new Error(`the tape has no session ${JSON.stringify(sessionId)}`);
    return session;
  };

  const turnOf = (session: SessionHandle, turnId: string): TurnChanges => {
    const turn = turnChanges(session.entries({ kind: 'event' })).get(turnId);
    if (turn === undefined) throw new Error(`turn ${turnId} of ${session.sessionId} recorded no file checkpoints, so it has no changes to show or undo`);
    return turn;
  };

  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, new CheckpointDocuments(() => openCheckpointStore(tape))),

    run('agentTape.restoreFiles', async (sessionId?: unknown, entryId?: unknown, given?: unknown): Promise<RestoreSummary | undefined> => {
      const options = restoreGiven.parse(given ?? undefined);
      if (sessionId !== undefined) return restoreFiles(deps, sessionArg.parse(sessionId), entryArg.parse(entryId), options);
      const ws = await tape.open();
      const current = deps.sessions.current(ws.store);
      if (current === undefined) {
        void vscode.window.showInformationMessage("Agent Tape: there is no chat session on this workspace's tape yet. Ask @tape something first.");
        return undefined;
      }
      const at = await pickCheckpoint(tape.tapeOf(ws).session(current));
      return at === undefined ? undefined : restoreFiles(deps, current, at, options);
    }),

    run('agentTape.undoTurnChanges', async (sessionId: unknown, turnId: unknown, given?: unknown): Promise<RestoreSummary | undefined> => {
      const session = await sessionOf(sessionArg.parse(sessionId));
      const turn = turnOf(session, z.string().check(z.minLength(1)).parse(turnId));
      // The turn's first checkpoint stands for the workspace from its turn/start: restoring there undoes the turn.
      const start = session.entries({ kind: 'event' }).find((e) => {
        const c = checkpointOf(e);
        return c?.reason === 'turn_start' && c.turnId === turn.turnId;
      });
      if (start === undefined) throw new Error(`turn ${turn.turnId} of ${session.sessionId} has no checkpoint from before it`);
      return restoreFiles(deps, session.sessionId, start.entryId, restoreGiven.parse(given ?? undefined));
    }),

    run('agentTape.reviewTurnChanges', async (sessionId: unknown, turnId: unknown): Promise<{ title: string; files: string[] } | undefined> => {
      const session = await sessionOf(sessionArg.parse(sessionId));
      const turn = turnOf(session, z.string().check(z.minLength(1)).parse(turnId));
      if (turn.files.length === 0) {
        void vscode.window.showInformationMessage('Agent Tape: this turn changed no files.');
        return undefined;
      }
      const root = vscode.Uri.file(checkpointRoot());
      // VS Code's multi-diff editor: an added file has no left side, a removed one no right side.
      const resources = turn.files.map((f) => [
        vscode.Uri.joinPath(root, f.path),
        f.change === 'added' ? undefined : checkpointUri(turn.beforeId, f.path),
        f.change === 'deleted' ? undefined : checkpointUri(turn.afterId, f.path),
      ]);
      // The editor adds the number of files to the title.
      const title = `Changes of turn ${short(turn.turnId)}${turn.filesOmitted > 0 ? `, ${turn.filesOmitted} more not listed` : ''}`;
      await vscode.commands.executeCommand('vscode.changes', title, resources);
      return { title, files: turn.files.map((f) => f.path) };
    }),

    run('agentTape.openCheckpointDiff', async (sessionId: unknown, fromId: unknown, toId: unknown, file: unknown): Promise<vscode.Uri[] | undefined> => {
      const session = await sessionOf(sessionArg.parse(sessionId));
      const from = checkpointArg.parse(fromId);
      const to = checkpointArg.parse(toId);
      const left = checkpointUri(from, z.string().parse(file));
      const right = checkpointUri(to, z.string().parse(file));
      const turn = [...turnChanges(session.entries({ kind: 'event' })).values()].find((t) => t.beforeId === from && t.afterId === to);
      const where = turn !== undefined ? `turn ${short(turn.turnId)}` : `${short(from)} ↔ ${short(to)}`;
      await vscode.commands.executeCommand('vscode.diff', left, right, `${path.posix.basename(left.path)} (${where})`, { preview: true });
      return [left, right];
    }),

    run('agentTape.rewind', async (sessionId: unknown, entryId: unknown, given?: unknown) => {
      const session = await sessionOf(sessionArg.parse(sessionId));
      const at = entryArg.parse(entryId);
      const options = rewindGiven.parse(given ?? undefined);
      const choice = options?.choice ?? (await pickRewind(session, at));
      if (choice === undefined) return undefined;
      if (choice === 'files') return restoreFiles(deps, session.sessionId, at, { confirmed: options?.confirmed });
      return vscode.commands.executeCommand('agentTape.forkSession', session.sessionId, at, { withFiles: choice === 'both', confirmed: options?.confirmed });
    }),
  );
}

/** Conversation, files or both, as the user asks for it; files only when a checkpoint stands for the entry. */
async function pickRewind(session: SessionHandle, at: number): Promise<RewindChoice | undefined> {
  const hasFiles = session.workspaceStateAt(at) !== null;
  const items: (vscode.QuickPickItem & { choice: RewindChoice })[] = [
    { label: 'Conversation only', detail: 'Fork the session at this entry; the files stay as they are.', choice: 'conversation' },
    ...(hasFiles
      ? [
          { label: 'Files only', detail: 'Restore the workspace files to the checkpoint at this entry; the conversation goes on.', choice: 'files' as const },
          { label: 'Conversation and files', detail: 'Fork the session at this entry, then restore the files into the fork.', choice: 'both' as const },
        ]
      : []),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `Tape: Rewind to entry #${at}`,
    placeHolder: hasFiles ? 'What to take back' : 'No file checkpoint stands for this entry: only the conversation can be rewound',
  });
  return picked?.choice;
}

/** The files a state's entry lists: a turn's changes, those since the checkpoint before, or those a restore wrote. */
function changedText(checkpoint: CheckpointData | null, restored: RestoredData | null): string {
  if (restored !== null) return `${files(restored.changed.length + restored.created.length + restored.removed.length + restored.omitted)} restored`;
  const n = checkpoint === null ? 0 : checkpoint.files.length + checkpoint.filesOmitted;
  if (checkpoint?.reason === 'turn_end') return `${files(n)} changed in the turn`;
  return n === 0 ? 'no file changed since the checkpoint before' : `${files(n)} changed since the checkpoint before`;
}

/** The session's checkpoints, newest first, each with why it was taken, when, its turn's request and the files; the entry to restore at. */
async function pickCheckpoint(session: SessionHandle): Promise<number | undefined> {
  const events = session.entries({ kind: 'event' });
  const byId = new Map<number, Entry>(events.map((e) => [e.entryId, e]));
  const asked = new Map<string, string>();
  for (const m of session.entries({ kind: 'message', name: 'message/user' })) {
    const turnId = m.meta.turnId;
    if (typeof turnId === 'string' && !asked.has(turnId)) asked.set(turnId, oneLine(String(m.payload.content).split('\n')[0] ?? '', 80));
  }
  const items = workspaceStates(events)
    .reverse()
    .map((state) => {
      const entry = byId.get(state.entryId) as Entry;
      const checkpoint = checkpointOf(entry);
      const restored = restoredOf(entry);
      const label = checkpoint !== null ? REASON_LABEL[checkpoint.reason] : 'After a restore';
      const request = checkpoint?.turnId !== undefined ? asked.get(checkpoint.turnId) : undefined;
      return {
        label,
        description: `${new Date(entry.createdAt).toLocaleString()} · entry #${state.entryId} · ${short(state.checkpointId)}`,
        // The count first: a long request is cut at the picker's edge.
        detail: `${changedText(checkpoint, restored)}${request !== undefined ? ` · "${request}"` : ''}`,
        at: state.entryId,
      };
    });
  if (items.length === 0) {
    void vscode.window.showInformationMessage(
      `Agent Tape: session ${session.sessionId} has no file checkpoints: they are taken when a turn runs a tool that may change files.`,
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Tape: Restore Files',
    placeHolder: `Checkpoints of ${session.sessionId}, newest first`,
    matchOnDetail: true,
  });
  return picked?.at;
}
