import type { Entry, NewEntry } from '../../tape/entry';
import { checkpointEntry, MAX_LISTED_PATHS, restoredEntry, workspaceStateAt, type WorkspaceState } from '../../tape/workspaceCheckpoint';
import { isEmptyPlan, type CheckpointStore, type RestorePlan } from './checkpointStore';

/** The session records no checkpoint standing for the workspace at the entry asked for. */
export class NoCheckpointError extends Error {}

/** A restore worked out and not yet applied: the state it goes back to and what changes. */
export interface PlannedRestore {
  sessionId: string;
  atEntryId: number;
  state: WorkspaceState;
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
 * `events` are the view's events in order (the checkpoints and restores are among them).
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
  return { sessionId, atEntryId, state, plan: await store.planRestore(state.checkpointId, signal) };
}

/**
 * Applies a planned restore: first the state before it goes on the tape as a `before_restore`
 * checkpoint (so the restore can be undone even if what follows fails), then the files change,
 * then `workspace/restored` records from which checkpoint to which and the files. A plan that
 * changes nothing changes nothing, on the tape either.
 */
export async function applyRestore(planned: PlannedRestore, store: CheckpointStore, append: Append, signal?: AbortSignal): Promise<RestoreReceipt> {
  const { plan, sessionId } = planned;
  if (isEmptyPlan(plan)) return { restored: false };
  const checkpointEntryId = await append([checkpointEntry(sessionId, { ...plan.before, reason: 'before_restore' })]);
  await store.applyRestore(plan, signal);
  const listed = (paths: string[], room: number) => paths.slice(0, Math.max(0, room));
  const changed = listed(plan.changed, MAX_LISTED_PATHS);
  const created = listed(plan.created, MAX_LISTED_PATHS - changed.length);
  const removed = listed(plan.removed, MAX_LISTED_PATHS - changed.length - created.length);
  const restoredEntryId = await append([
    restoredEntry(sessionId, {
      fromCheckpointId: plan.before.checkpointId,
      toCheckpointId: plan.targetId,
      atEntryId: planned.atEntryId,
      changed,
      created,
      removed,
      omitted: plan.changed.length + plan.created.length + plan.removed.length - changed.length - created.length - removed.length,
    }),
  ]);
  return { restored: true, checkpointEntryId, restoredEntryId };
}
