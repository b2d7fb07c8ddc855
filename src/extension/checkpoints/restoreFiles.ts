import * as path from 'path';
import * as vscode from 'vscode';
import { CheckpointMissingError, isEmptyPlan, StalePlanError, type RestorePlan } from '../../agent/checkpoints/checkpointStore';
import { NoCheckpointError, RestoreFailedError, WrongWorkspaceError } from '../../agent/checkpoints/restore';
import { GitMissingError } from '../../agent/checkpoints/shadowGit';
import { errorMessage } from '../../tape/errorMessage';
import type { Deps } from '../deps';
import { checkpointRoot, openCheckpointStore } from './windowCheckpoints';

/** What a script or a test may say instead of answering the modal: the plan needs no confirmation. */
export interface RestoreOptions {
  confirmed?: boolean;
}

/** What a restore did (for scripts and tests); `restored` false: the files were already as at the checkpoint. */
export interface RestoreSummary {
  sessionId: string;
  checkpointId: string;
  restored: boolean;
  changed: string[];
  created: string[];
  removed: string[];
  /** The `before_restore` checkpoint (restoring to it undoes this) and the `workspace/restored` event. */
  checkpointEntryId?: number;
  restoredEntryId?: number;
}

const RESTORE = 'Restore Files';
const UNDO = 'Undo Restore';
const PLAN_AGAIN = 'Plan Again';
/** Paths listed per kind in the confirmation; the rest are counted. */
const LISTED = 15;

/**
 * The one restore every entry point goes through (the palette, the chat's Undo, the inspector,
 * rewind, a fork with files, Undo Restore): the files of the workspace back to the checkpoint
 * standing for entry `at` of the session's view. The plan is shown first and applied only when
 * the user agrees; it is refused, with nothing changed, while an affected file has unsaved changes
 * in an editor, for a checkpoint of another folder, and when a file it touches changed after the
 * plan was shown (then a new plan is offered). Undefined when nothing was applied because of a
 * refusal, an error (both said to the user) or a no.
 */
export async function restoreFiles(
  deps: Pick<Deps, 'log' | 'tape'>,
  sessionId: string,
  at: number,
  options: RestoreOptions = {},
): Promise<RestoreSummary | undefined> {
  const { log, tape } = deps;
  const ws = await tape.open();
  if (ws.state.mode === 'readOnly') {
    void vscode.window.showWarningMessage(
      `Agent Tape: the tape is read-only in this window (${ws.state.reason}); restore the files from the window that writes it.`,
    );
    return undefined;
  }
  const session = tape.tapeOf(ws).session(sessionId);
  if (session.head() === 0) throw new Error(`the tape has no session ${JSON.stringify(sessionId)}`);
  try {
    const store = await openCheckpointStore(tape, ws);
    // The folder as VS Code names it and as git does (its real path), for the editors' paths.
    const roots = [checkpointRoot(), store.workspaceRoot];
    const planned = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Agent Tape: comparing the files with the checkpoint…' },
      () => session.planRestore(store, at),
    );
    const { plan, state } = planned;
    const name = `checkpoint ${state.checkpointId.slice(0, 8)} (entry #${state.entryId} of ${sessionId})`;
    const summary: RestoreSummary = {
      sessionId,
      checkpointId: state.checkpointId,
      restored: false,
      changed: plan.changed,
      created: plan.created,
      removed: plan.removed,
    };
    if (isEmptyPlan(plan)) {
      log.info(`restore of ${sessionId} at entry ${at}: the files are already as at ${name}`);
      void vscode.window.showInformationMessage(`Agent Tape: nothing to restore: the files are already as at ${name}.`);
      return summary;
    }
    if (refusedForUnsaved(deps, plan, roots)) return undefined;
    if (options.confirmed !== true) {
      const choice = await vscode.window.showWarningMessage(
        `Restore the files of ${planned.workspace.root} to ${name}?`,
        { modal: true, detail: planText(plan, planned.workspace.root) },
        RESTORE,
      );
      if (choice !== RESTORE) return undefined;
      // The modal may have stood a while: an editor changed meanwhile still refuses.
      if (refusedForUnsaved(deps, plan, roots)) return undefined;
    }
    const receipt = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Agent Tape: restoring ${count(plan)}…` }, () =>
      session.restore(store, planned),
    );
    log.info(
      `restored ${sessionId} to ${state.checkpointId} (asked at entry ${at}): ${plan.changed.length} changed, ${plan.created.length} created, ${plan.removed.length} removed; recorded at entry ${receipt.restoredEntryId}, undo at entry ${receipt.checkpointEntryId}`,
    );
    const done = { ...summary, restored: receipt.restored, checkpointEntryId: receipt.checkpointEntryId, restoredEntryId: receipt.restoredEntryId };
    const undoAt = receipt.checkpointEntryId;
    void vscode.window
      .showInformationMessage(`Agent Tape: restored ${count(plan)} to ${name}: ${kinds(plan)}.`, ...(undoAt !== undefined ? [UNDO] : []))
      .then((choice) => (choice === UNDO ? vscode.commands.executeCommand('agentTape.restoreFiles', sessionId, undoAt) : undefined));
    return done;
  } catch (e) {
    const message = restoreErrorMessage(e);
    if (message === undefined) throw e;
    log.error(`restore of ${sessionId} at entry ${at} ${e instanceof RestoreFailedError ? 'failed' : 'refused'}: ${errorMessage(e)}`);
    if (e instanceof StalePlanError)
      void vscode.window
        .showErrorMessage(`Agent Tape: ${message}`, PLAN_AGAIN)
        .then((choice) => (choice === PLAN_AGAIN ? vscode.commands.executeCommand('agentTape.restoreFiles', sessionId, at) : undefined));
    else void vscode.window.showErrorMessage(`Agent Tape: ${message}`);
    return undefined;
  }
}

/** The user's words for what stops a restore before anything changes; undefined for anything else. */
function restoreErrorMessage(e: unknown): string | undefined {
  if (e instanceof NoCheckpointError)
    return `${e.message}. A checkpoint is taken when a turn first runs a tool that may change files (unless agentTape.checkpoints is off); nothing was changed.`;
  if (e instanceof CheckpointMissingError)
    return `${e.message}: it was made elsewhere or the store was removed, so it cannot be restored; nothing was changed.`;
  if (e instanceof GitMissingError) return `restoring files needs git (${e.message}); nothing was changed.`;
  if (e instanceof WrongWorkspaceError)
    return `${e.message}. ${e.recorded !== undefined ? `Open ${e.recorded.root} to restore its files.` : 'Open the folder it was taken of to restore its files.'}`;
  if (e instanceof StalePlanError) return `${e.message}.`;
  if (e instanceof RestoreFailedError)
    return e.rolledBack ? `${e.message}.` : `${e.message}; restoring entry #${e.checkpointEntryId} (its before_restore checkpoint) brings them back.`;
  return undefined;
}

/** Refuses (and says which files) when an editor holds unsaved changes of a file the restore would write or remove. */
function refusedForUnsaved(deps: Pick<Deps, 'log' | 'tape'>, plan: RestorePlan, roots: readonly string[]): boolean {
  const affected = new Set<string>();
  for (const rel of [...plan.changed, ...plan.created, ...plan.removed]) for (const root of roots) affected.add(path.join(root, rel));
  const unsaved = vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file' && affected.has(d.uri.fsPath));
  if (unsaved.length === 0) return false;
  const names = unsaved.map((d) => vscode.workspace.asRelativePath(d.uri, false));
  deps.log.warn(`restore refused: unsaved changes in ${names.join(', ')}`);
  void vscode.window.showErrorMessage(
    `Agent Tape: the restore would overwrite unsaved changes in ${names.join(', ')}. Save or revert ${names.length === 1 ? 'it' : 'them'}, then restore again; nothing was changed.`,
  );
  return true;
}

function planText(plan: RestorePlan, folder: string): string {
  const lines: string[] = [`Folder: ${folder}`];
  for (const [label, paths] of [
    ['Changed', plan.changed],
    ['Created', plan.created],
    ['Removed', plan.removed],
  ] as const) {
    if (paths.length === 0) continue;
    lines.push(`${label} (${paths.length}):`, ...paths.slice(0, LISTED).map((p) => `  ${p}`));
    if (paths.length > LISTED) lines.push(`  …and ${paths.length - LISTED} more`);
  }
  if (plan.leftAlone.length > 0) lines.push(`Left alone (outside the checkpoints): ${plan.leftAlone.length}`);
  lines.push('', 'The files as they are now are checkpointed first, so the restore can be undone.');
  return lines.join('\n');
}

const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;
const count = (plan: RestorePlan): string => files(plan.changed.length + plan.created.length + plan.removed.length);
const kinds = (plan: RestorePlan): string =>
  [
    [plan.changed.length, 'changed'],
    [plan.created.length, 'created'],
    [plan.removed.length, 'removed'],
  ]
    .filter(([n]) => n !== 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
