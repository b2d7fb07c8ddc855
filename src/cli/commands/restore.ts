import { CheckpointStore } from '../../agent/checkpoints/checkpointStore';
import { statSync } from 'fs';
import * as path from 'path';
import { NoCheckpointError, RestoreFailedError, type PlannedRestore, type RestoreReceipt } from '../../agent/checkpoints/restore';
import { checkpointStoreOf, tapeFileExclusions } from '../../agent/checkpoints/workspaceCheckpoints';
import { OpenTape } from '../../agent/session/openTape';
import { TapeStore } from '../../store/tapeStore';
import type { WorkspaceState } from '../../tape/workspaceCheckpoint';
import { int, parseArgs, required, str, UsageError, type Parsed } from '../args';
import { json, type Io } from '../output';
import { workspaceOf } from './run';
import { requireSqliteTape } from './session';
import { withTape } from './withTape';

/**
 * `restore`: the workspace's files back to the checkpoint at or before an entry of a session, in
 * the folder the checkpoint was taken of (`--workspace` may only name that one). The plan is
 * printed first; with `--dry-run` only the plan (the tape and the workspace stay as they are).
 * Exit 2 when the session has no checkpoint there, the store lacks it, it is another folder's, or
 * a file changed between the plan and the writing; exit 1 when the writing failed part way (the
 * files are put back, and the tape says so).
 */
export async function restoreCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'at', 'workspace'], switches: ['dry-run', 'json'], positional: ['tape.sqlite'] });
  const file = p.positional[0];
  const sessionId = required(p, 'session');
  const at = int(p, 'at');
  if (at === undefined) throw new UsageError('restore needs --at ENTRY');
  if (at < 1) throw new UsageError('--at must be an entry id (1 or more)');
  const dryRun = p.flags.has('dry-run');
  requireSqliteTape('restore', file);

  const act = async (tape: OpenTape): Promise<{ planned: PlannedRestore; receipt: RestoreReceipt | null }> => {
    const session = tape.session(sessionId);
    if (session.head() === 0) throw new UsageError(`the tape has no session ${sessionId}`);
    const state = session.workspaceStateAt(at);
    if (state === null) throw new NoCheckpointError(`session ${sessionId} has no workspace checkpoint at or before entry ${at}`);
    const checkpoints = await CheckpointStore.open(checkpointStoreOf(file), folderOf(p, state), { create: false, exclude: tapeFileExclusions(file) });
    const planned = await session.planRestore(checkpoints, at);
    if (!p.flags.has('json')) printPlan(io, planned, dryRun);
    try {
      return { planned, receipt: dryRun ? null : await session.restore(checkpoints, planned) };
    } catch (e) {
      if (e instanceof RestoreFailedError && !e.rolledBack)
        throw new RestoreFailedError(`${e.message}; restore --at ${e.checkpointEntryId} brings them back`, false, e.checkpointEntryId, e.failedEntryId);
      throw e;
    }
  };
  const { planned, receipt } = dryRun ? await withTape(file, act) : await withWritableTape(file, act);
  const { plan, state } = planned;
  if (p.flags.has('json')) {
    json(io, {
      sessionId,
      atEntryId: at,
      workspace: planned.workspace.root,
      checkpointId: state.checkpointId,
      checkpointEntryId: state.entryId,
      beforeCheckpointId: plan.before.checkpointId,
      dryRun,
      changed: plan.changed,
      created: plan.created,
      removed: plan.removed,
      leftAlone: plan.leftAlone,
      restored: receipt?.restored ?? false,
      ...(receipt?.restoredEntryId !== undefined ? { beforeRestoreEntryId: receipt.checkpointEntryId, restoredEntryId: receipt.restoredEntryId } : {}),
    });
  } else if (receipt !== null) {
    io.out(
      receipt.restored
        ? `restored; recorded as entry ${receipt.restoredEntryId} (undo: restore --at ${receipt.checkpointEntryId})\n`
        : 'nothing to restore: the files are already as at the checkpoint\n',
    );
  }
  return 0;
}

/**
 * The folder to restore: `--workspace`, else the one the checkpoint records (wherever the command
 * runs), else (an entry of an older build) the current directory, which the restore then accepts
 * only when the checkpoint is among its snapshots.
 */
function folderOf(p: Parsed, state: WorkspaceState): string {
  if (str(p, 'workspace') !== undefined || state.workspace === undefined) return workspaceOf(p);
  const { root } = state.workspace;
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`checkpoint ${state.checkpointId.slice(0, 12)} was taken of ${root}, which is not a directory now; nothing was changed`);
  return path.resolve(root);
}

async function withWritableTape<T>(file: string, fn: (tape: OpenTape) => Promise<T>): Promise<T> {
  const store = await TapeStore.open(file, { create: false, durable: true });
  try {
    return await fn(new OpenTape(store));
  } finally {
    await store.close();
  }
}

function printPlan(io: Io, { plan, state, workspace }: PlannedRestore, dryRun: boolean): void {
  io.out(`checkpoint ${state.checkpointId.slice(0, 12)} (entry ${state.entryId})${dryRun ? ', dry run: nothing is changed' : ''}\n`);
  io.out(`folder ${workspace.root}\n`);
  for (const [label, paths] of [
    ['changed', plan.changed],
    ['created', plan.created],
    ['removed', plan.removed],
    ['left alone (outside the checkpoints)', plan.leftAlone],
  ] as const)
    for (const path of paths) io.out(`  ${label}: ${path}\n`);
  if (plan.changed.length + plan.created.length + plan.removed.length === 0) io.out('  no file differs\n');
}
