import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { SessionTitles } from '../inspector/sessionTitles';
import type { OpenTape } from '../agent/session/openTape';
import { forkStatus, parentOf, type ForkReceipt } from '../store/forks';
import type { DiscardReceipt, MergeReceipt } from '../tape/fork';
import { restoreFiles, type RestoreSummary } from './checkpoints/restoreFiles';
import type { Deps } from './deps';
import { reportingCommands } from './sessionCommands';

/** A session given to a command: its id (palette, scripts, the inspector) or a row of the sessions view. */
const sessionArg = z.optional(z.union([z.string().check(z.minLength(1)), z.looseObject({ sessionId: z.string().check(z.minLength(1)) })]));
/** An entry to fork at: a position of the session's view. */
const entryArg = z.optional(z.int().check(z.positive()));
/** What a script, a test or Rewind says instead of answering: whether the files go along, and that the restore's plan needs no confirmation. */
const forkGiven = z.optional(z.object({ withFiles: z.optional(z.boolean()), confirmed: z.optional(z.boolean()) }));

/** A fork, and when the files went along, the restore into it. */
type ForkOutcome = ForkReceipt & { restore?: RestoreSummary };

const sessionIdOf = (arg: unknown): string | undefined => {
  const given = sessionArg.parse(arg ?? undefined);
  return typeof given === 'string' ? given : given?.sessionId;
};

const DISCARD = 'Discard Fork';
const OPEN = 'Open in Inspector';
const FORK = 'Fork';
const FORK_WITH_FILES = 'Fork with Files';

/** A session as people know it: its title, else its id. */
const nameOf = (tape: OpenTape, sessionId: string): string => {
  const title = new SessionTitles(tape.reader).title(sessionId);
  return title === null ? sessionId : `"${title}" (${sessionId})`;
};

/**
 * "Tape: Fork Session", "Tape: Merge Fork" and "Tape: Discard Fork" on the workspace tape. Each is
 * one append with a receipt (src/store/forks.ts); a refusal (ForkRefusedError) is shown as an
 * error and appends nothing. Each returns its receipt, so scripts and tests can use them.
 */
export function registerForkCommands(deps: Pick<Deps, 'log' | 'tape' | 'sessions' | 'tree'>): vscode.Disposable {
  const { log, tape, tree } = deps;
  const run = reportingCommands(log);

  /** The open tape, when this window may write it; else says why not. */
  const writableTape = async (): Promise<OpenTape | undefined> => {
    const ws = await tape.open();
    if (ws.state.mode === 'readOnly') {
      void vscode.window.showWarningMessage(`Agent Tape: the tape is read-only in this window (${ws.state.reason}).`);
      return undefined;
    }
    return tape.tapeOf(ws);
  };

  /** The fork a merge or discard acts on: the one given, else the current session if it is an open fork, else the user's pick. */
  const pickFork = async (open: OpenTape, arg: unknown, title: string): Promise<string | undefined> => {
    const { store } = open;
    const given = sessionIdOf(arg);
    if (given !== undefined) return given;
    const isOpenFork = (id: string): boolean => parentOf(store, id)?.relation === 'fork' && forkStatus(store, id) === 'open';
    const current = deps.sessions.current(store);
    if (current !== undefined && isOpenFork(current)) return current;
    const forks = store
      .sessions()
      .filter((s) => isOpenFork(s.sessionId))
      .sort((a, b) => b.lastCreatedAt - a.lastCreatedAt);
    if (forks.length === 0) {
      void vscode.window.showInformationMessage("Agent Tape: there is no open fork on this workspace's tape. Fork a session first (Tape: Fork Session).");
      return undefined;
    }
    const titles = new SessionTitles(open.reader);
    const picked = await vscode.window.showQuickPick(
      forks.map((s) => ({ label: titles.title(s.sessionId) ?? 'Untitled session', description: s.sessionId, sessionId: s.sessionId })),
      { title, placeHolder: 'Open forks, newest first' },
    );
    return picked?.sessionId;
  };

  return vscode.Disposable.from(
    run('agentTape.forkSession', async (session?: unknown, entryId?: unknown, given?: unknown): Promise<ForkOutcome | undefined> => {
      const at = entryArg.parse(entryId ?? undefined);
      const options = forkGiven.parse(given ?? undefined);
      const open = await writableTape();
      if (!open) return undefined;
      const parent = sessionIdOf(session) ?? deps.sessions.current(open.store);
      if (parent === undefined) {
        void vscode.window.showInformationMessage("Agent Tape: there is no chat session on this workspace's tape yet. Ask @tape something first.");
        return undefined;
      }
      const handle = open.session(parent);
      let withFiles = options?.withFiles ?? false;
      // A session with file checkpoints can take its files along: asked, since a fork alone leaves them as they are.
      if (options?.withFiles === undefined && handle.workspaceStateAt(at ?? handle.head()) !== null) {
        const choice = await vscode.window.showInformationMessage(
          `Fork ${nameOf(open, parent)} at entry #${at ?? handle.head()}?`,
          {
            modal: true,
            detail:
              'Fork leaves the workspace files as they are. Fork with Files also takes them back to the checkpoint at that point, recorded in the fork (you see what changes first).',
          },
          FORK,
          FORK_WITH_FILES,
        );
        if (choice === undefined) return undefined;
        withFiles = choice === FORK_WITH_FILES;
      }
      const receipt = await handle.fork(at === undefined ? {} : { at });
      log.info(`forked ${parent} at entry ${receipt.parentHeadEntryId} as ${receipt.forkSessionId}`);
      tree.refresh();
      void vscode.window
        .showInformationMessage(
          `Agent Tape: forked ${nameOf(open, parent)} at entry #${receipt.parentHeadEntryId} as fork "${receipt.forkId}". The parent is unchanged; merge or discard the fork when it is done.`,
          OPEN,
        )
        .then((choice) => (choice === OPEN ? vscode.commands.executeCommand('agentTape.openInspector', receipt.forkSessionId) : undefined));
      if (!withFiles) return receipt;
      const restore = await restoreFiles(deps, receipt.forkSessionId, receipt.parentHeadEntryId, { confirmed: options?.confirmed });
      return restore === undefined ? receipt : { ...receipt, restore };
    }),

    run('agentTape.mergeFork', async (fork?: unknown): Promise<(MergeReceipt & { alreadyMerged: boolean }) | undefined> => {
      const open = await writableTape();
      if (!open) return undefined;
      const id = await pickFork(open, fork, 'Tape: Merge Fork');
      if (id === undefined) return undefined;
      const receipt = await open.session(id).merge();
      tree.refresh();
      if (receipt.alreadyMerged) {
        void vscode.window.showInformationMessage(
          `Agent Tape: fork "${receipt.forkId}" was already merged (receipt at entry #${receipt.receiptEntryId} of its parent); nothing was appended.`,
        );
        return receipt;
      }
      log.info(`merged ${id}: ${receipt.mergedCount} entries, receipt at entry ${receipt.receiptEntryId} of its parent`);
      const moved = receipt.parentMovedOn
        ? `The parent had moved on since the fork (#${receipt.parentHeadAtFork} then, #${receipt.parentHeadAtMerge} at the merge): the fork's messages come after the parent's.`
        : 'The parent had not moved on since the fork.';
      void vscode.window.showInformationMessage(
        `Agent Tape: merged fork "${receipt.forkId}": ${receipt.mergedCount} ${receipt.mergedCount === 1 ? 'entry' : 'entries'} appended to its parent, receipt at entry #${receipt.receiptEntryId}. ${moved}`,
      );
      return receipt;
    }),

    run('agentTape.discardFork', async (fork?: unknown, reason?: unknown): Promise<DiscardReceipt | undefined> => {
      const why = z.optional(z.string()).parse(reason ?? undefined);
      const open = await writableTape();
      if (!open) return undefined;
      const id = await pickFork(open, fork, 'Tape: Discard Fork');
      if (id === undefined) return undefined;
      const parent = parentOf(open.store, id);
      if (parent?.relation !== 'fork') throw new Error(`${JSON.stringify(id)} is not a fork`);
      const forkId = open.reader.forkOf(id)?.forkId ?? id;
      const choice = await vscode.window.showWarningMessage(
        `Discard the fork "${forkId}" of ${nameOf(open, parent.sessionId)}?`,
        {
          modal: true,
          detail: 'Its entries stay on the tape, but it can never be merged, and its fork id is never used again. The parent gets a fork/discard receipt.',
        },
        DISCARD,
      );
      if (choice !== DISCARD) return undefined;
      const receipt = await open.session(id).discard(why);
      log.info(`discarded ${id}: receipt at entry ${receipt.receiptEntryId} of ${parent.sessionId}`);
      tree.refresh();
      void vscode.window.showInformationMessage(`Agent Tape: discarded fork "${receipt.forkId}" (receipt at entry #${receipt.receiptEntryId} of its parent).`);
      return receipt;
    }),
  );
}
