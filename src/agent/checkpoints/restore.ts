import type { Entry, NewEntry } from '../../tape/entry';
import {
  checkpointEntry,
  MAX_LISTED_PATHS,
  restoredEntry,
  restoreFailedEntry,
  workspaceStateAt,
  type CheckpointWorkspace,
  type WorkspaceState,
} from '../../tape/workspaceCheckpoint';
import { isEmptyPlan, RestoreWriteError, type CheckpointStore, type RestorePlan } from './checkpointStore';

/** The session records no checkpoint standing for the workspace at the entry asked for. */
export class NoCheckpointError extends Error {}

/**
 * The checkpoint is of another folder than the one the restore would write (or, recorded before
 * checkpoints named their folder, is not among this folder's). Nothing was changed.
 */
export class WrongWorkspaceError extends Error {
  constructor(
    message: string,
    /** The folder the checkpoint was taken of, when the tape says. */
    readonly recorded: CheckpointWorkspace | undefined,
  ) {
    super(message);
  }
}

/** A restore failed part way; the tape says so (`workspace/restore-failed`) and whether the files were put back. */
export class RestoreFailedError extends Error {
  constructor(
    message: string,
    readonly rolledBack: boolean,
    /** The `before_restore` checkpoint: restoring it brings back what could not be put back. */
    readonly checkpointEntryId: number,
    readonly failedEntryId: number,
  ) {
    super(message);
  }
}

/** A restore worked out and not yet applied: the state it goes back to and what changes. */
export interface PlannedRestore {
  sessionId: string;
  atEntryId: number;
  state: WorkspaceState;
  /** The folder the restore changes. */
  workspace: CheckpointWorkspace;
  plan: RestorePlan;
}

export interface RestoreReceipt {
  /** False when the workspace already was at the checkpoint: nothing changed and nothing was appended. */
  restored: boolean;
  /** The `before_restore` checkpoint and the `workspace/restored` event, positions of the view. */
  checkpointEntryId?: number;
  restoredEntryId?: number;
}

/** Appends entries and says where the last of them is. */
export type Append = (entries: NewEntry[]) => Promise<number>;

/**
 * What restoring the workspace to the state at `atEntryId` of a session's view would change.
 * `events` are the view's events in order (the checkpoints and restores are among them). Refuses
 * (WrongWorkspaceError) a store opened on another folder than the checkpoint's.
 */
export async function planRestore(
  sessionId: string,
  events: readonly Entry[],
  atEntryId: number,
  store: CheckpointStore,
  signal?: AbortSignal,
): Promise<PlannedRestore> {
  const state = workspaceStateAt(events, atEntryId);
  if (state === null) throw new NoCheckpointError(`session ${sessionId} has no workspace checkpoint at or before entry ${atEntryId}`);
  await requireWorkspaceOf(state, store);
  return { sessionId, atEntryId, state, workspace: store.workspace, plan: await store.planRestore(state.checkpointId, signal) };
}

/**
 * The checkpoint's folder must be the store's: the one it records, or, for an entry written before
 * checkpoints recorded it, one whose snapshots hold it (a store serves every folder of one tape).
 */
async function requireWorkspaceOf(state: WorkspaceState, store: CheckpointStore): Promise<void> {
  const here = store.workspace;
  const name = `checkpoint ${state.checkpointId.slice(0, 12)} (entry ${state.entryId})`;
  if (state.workspace !== undefined) {
    if (state.workspace.key !== here.key)
      throw new WrongWorkspaceError(`${name} was taken of the folder ${state.workspace.root}, not of ${here.root}: nothing was changed`, state.workspace);
    return;
  }
  // A checkpoint the store lacks altogether is the store's CheckpointMissingError to report.
  if ((await store.has(state.checkpointId)) && !(await store.isOfThisWorkspace(state.checkpointId)))
    throw new WrongWorkspaceError(
      `${name} does not say which folder it was taken of and is not among the checkpoints of ${here.root}: nothing was changed; name the folder it was taken of`,
      undefined,
    );
}

/**
 * Applies a planned restore, all or nothing. Right before the files change (once the store found
 * the plan's paths as the plan saw them, else StalePlanError and nothing happens) the files as they
 * are go on the tape as a `before_restore` checkpoint (durably: a crash part way leaves it to go
 * back to); then `workspace/restored` records from which checkpoint to which and the files. A write
 * that fails part way is put back by the store and recorded as `workspace/restore-failed`, then
 * rejects with RestoreFailedError. A plan that changes nothing changes nothing, on the tape either.
 */
export async function applyRestore(planned: PlannedRestore, store: CheckpointStore, append: Append, signal?: AbortSignal): Promise<RestoreReceipt> {
  const { plan, sessionId } = planned;
  if (isEmptyPlan(plan)) return { restored: false };
  const { workspace } = store;
  let checkpointEntryId = 0;
  let before;
  try {
    before = await store.applyRestore(plan, {
      signal,
      beforeWrite: async (now) => {
        checkpointEntryId = await append([checkpointEntry(sessionId, { ...now, reason: 'before_restore', workspace })]);
      },
    });
  } catch (error) {
    if (!(error instanceof RestoreWriteError)) throw error;
    const differing = error.differing.slice(0, MAX_LISTED_PATHS);
    const failedEntryId = await append([
      restoreFailedEntry(sessionId, {
        fromCheckpointId: error.before.checkpointId,
        toCheckpointId: plan.targetId,
        atEntryId: planned.atEntryId,
        workspace,
        message: error.message,
        rolledBack: error.differing.length === 0,
        differing,
        differingOmitted: error.differing.length - differing.length,
        failedAt: Date.now(),
      }),
    ]);
    throw new RestoreFailedError(error.message, error.differing.length === 0, checkpointEntryId, failedEntryId);
  }
  const listed = (paths: string[], room: number) => paths.slice(0, Math.max(0, room));
  const changed = listed(plan.changed, MAX_LISTED_PATHS);
  const created = listed(plan.created, MAX_LISTED_PATHS - changed.length);
  const removed = listed(plan.removed, MAX_LISTED_PATHS - changed.length - created.length);
  const restoredEntryId = await append([
    restoredEntry(sessionId, {
      fromCheckpointId: before.checkpointId,
      toCheckpointId: plan.targetId,
      atEntryId: planned.atEntryId,
      changed,
      created,
      removed,
      omitted: plan.changed.length + plan.created.length + plan.removed.length - changed.length - created.length - removed.length,
      workspace,
    }),
  ]);
  return { restored: true, checkpointEntryId, restoredEntryId };
}
