import { WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED, RESTORE_FAILED, CHECKPOINTS_OFF, TURN_START } from './entryNames';
import * as z from 'zod';
import type { Entry, JsonObject, NewEntry } from './entry';
import { namedProvenanceKey } from './provenanceKey';

/**
 * The workspace on the tape. A `workspace/checkpoint` event records that the workspace's files were
 * snapshotted into the checkpoint store beside the tape (its id is the store's), which files changed
 * since the checkpoint it was compared with, and what was left out and why. A `workspace/restored`
 * event records that files were taken back to a checkpoint, `workspace/restore-failed` that a
 * restore stopped part way and whether the files were put back. `workspace/checkpoints-off` says
 * once that a session records no checkpoints, and why. The snapshots themselves are never on the tape.
 */

/** At most this many paths are listed in one event; the rest are counted. */
export const MAX_LISTED_PATHS = 1000;

/** A checkpoint store's snapshot id: a git commit id (SHA-1 or SHA-256 object format). */
const snapshotId = z.string().regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/, 'a snapshot id (40 or 64 lowercase hex digits)');

/**
 * Which workspace a checkpoint is of: the store's key for it (its ref is `refs/tape/<key>`) and its
 * root as the user knows it (the real path). A restore refuses any other folder. Entries written
 * before it was recorded have none.
 */
export const checkpointWorkspace = z.object({
  key: z.string().regex(/^[0-9a-f]{16}$/, 'a workspace key (16 lowercase hex digits)'),
  root: z.string().min(1),
});
export type CheckpointWorkspace = z.infer<typeof checkpointWorkspace>;

export const fileChangeSchema = z.object({
  /** Workspace-relative, `/`-separated. */
  path: z.string().min(1),
  change: z.enum(['added', 'modified', 'deleted']),
  /** Lines added and removed; null for a binary file. */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
});
export type FileChange = z.infer<typeof fileChangeSchema>;

export const skippedFileSchema = z.object({
  path: z.string().min(1),
  reason: z.enum(['too_large', 'tape_file', 'nested_repository']),
  size: z.number().int().nonnegative().optional(),
});
export type SkippedFile = z.infer<typeof skippedFileSchema>;

/**
 * Why a checkpoint was taken: `turn_start` just before the turn's first tool that may change files
 * (nothing of the turn that could change a file ran before it, so it stands for the workspace from
 * the turn's `turn/start` on), `turn_end` when such a turn ended, `before_restore` just before a
 * restore changed files, so the restore can itself be undone.
 */
export const checkpointReason = z.enum(['turn_start', 'turn_end', 'before_restore']);
export type CheckpointReason = z.infer<typeof checkpointReason>;

export const checkpointData = z.looseObject({
  checkpointId: snapshotId,
  /** The checkpoint the file list compares with; null for the store's first of this workspace. */
  previousId: snapshotId.nullable(),
  reason: checkpointReason,
  turnId: z.string().min(1).optional(),
  workspace: checkpointWorkspace.optional(),
  /** Files the snapshot holds. */
  fileCount: z.number().int().nonnegative(),
  files: z.array(fileChangeSchema),
  /** Changed files beyond the ones listed. */
  filesOmitted: z.number().int().nonnegative(),
  skipped: z.array(skippedFileSchema),
  skippedOmitted: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
});
export type CheckpointData = z.infer<typeof checkpointData>;

export const restoredData = z.looseObject({
  /** The snapshot of the workspace just before the restore (its `before_restore` checkpoint). */
  fromCheckpointId: snapshotId,
  /** The checkpoint the files were taken back to. */
  toCheckpointId: snapshotId,
  /** The entry of the session's view the restore was asked for. */
  atEntryId: z.number().int().positive(),
  changed: z.array(z.string()),
  created: z.array(z.string()),
  removed: z.array(z.string()),
  /** Paths listed in none of the three because there were more than MAX_LISTED_PATHS. */
  omitted: z.number().int().nonnegative(),
  workspace: checkpointWorkspace.optional(),
});
export type RestoredData = z.infer<typeof restoredData>;

export const restoreFailedData = z.looseObject({
  /** The `before_restore` checkpoint: the files as they were, what a failed restore puts back. */
  fromCheckpointId: snapshotId,
  toCheckpointId: snapshotId,
  atEntryId: z.number().int().positive(),
  workspace: checkpointWorkspace,
  /** Why the restore stopped. */
  message: z.string(),
  /** True: every file is as it was before the restore; false: the paths in `differing` are not (restore `fromCheckpointId` to bring them back). */
  rolledBack: z.boolean(),
  differing: z.array(z.string()),
  differingOmitted: z.number().int().nonnegative(),
  /** When it failed (ms since the epoch): each failed attempt is its own event. */
  failedAt: z.number().int().nonnegative(),
});
export type RestoreFailedData = z.infer<typeof restoreFailedData>;

export const checkpointsOffData = z.looseObject({
  reason: z.enum(['git_missing', 'too_large', 'failed']),
  message: z.string(),
});
export type CheckpointsOffData = z.infer<typeof checkpointsOffData>;

function event(name: string, key: string, data: JsonObject, turnId?: string): NewEntry {
  return { kind: 'event', name, provenanceKey: key, payload: { name, data }, ...(turnId !== undefined ? { meta: { turnId } } : {}) };
}

/** One per snapshot, reason and turn: a turn retried after a crash records each of its checkpoints once. */
export function checkpointEntry(sessionId: string, data: CheckpointData): NewEntry {
  const parsed = checkpointData.parse(data);
  return event(
    WORKSPACE_CHECKPOINT,
    namedProvenanceKey(WORKSPACE_CHECKPOINT, sessionId, parsed.checkpointId, parsed.reason, parsed.turnId ?? ''),
    parsed as JsonObject,
    parsed.turnId,
  );
}

export function restoredEntry(sessionId: string, data: RestoredData): NewEntry {
  const parsed = restoredData.parse(data);
  return event(
    WORKSPACE_RESTORED,
    namedProvenanceKey(WORKSPACE_RESTORED, sessionId, parsed.fromCheckpointId, parsed.toCheckpointId, parsed.atEntryId),
    parsed as JsonObject,
  );
}

export function restoreFailedEntry(sessionId: string, data: RestoreFailedData): NewEntry {
  const parsed = restoreFailedData.parse(data);
  return event(
    RESTORE_FAILED,
    namedProvenanceKey(RESTORE_FAILED, sessionId, parsed.fromCheckpointId, parsed.toCheckpointId, parsed.atEntryId, parsed.failedAt),
    parsed as JsonObject,
  );
}

/** Once per session: the notice is given once, and checkpoints stay off for the session. */
export function checkpointsOffEntry(sessionId: string, data: CheckpointsOffData, turnId?: string): NewEntry {
  return event(CHECKPOINTS_OFF, namedProvenanceKey(CHECKPOINTS_OFF, sessionId), checkpointsOffData.parse(data) as JsonObject, turnId);
}

function dataOf<T>(entry: Entry, name: string, schema: z.ZodType<T>): T | null {
  if (entry.kind !== 'event' || entry.name !== name) return null;
  const parsed = schema.safeParse((entry.payload as { data?: unknown }).data);
  return parsed.success ? parsed.data : null;
}

/** A `workspace/checkpoint` event's data; null for any other entry or a malformed one. */
export const checkpointOf = (entry: Entry): CheckpointData | null => dataOf(entry, WORKSPACE_CHECKPOINT, checkpointData);
export const restoredOf = (entry: Entry): RestoredData | null => dataOf(entry, WORKSPACE_RESTORED, restoredData);
export const restoreFailedOf = (entry: Entry): RestoreFailedData | null => dataOf(entry, RESTORE_FAILED, restoreFailedData);
export const checkpointsOffOf = (entry: Entry): CheckpointsOffData | null => dataOf(entry, CHECKPOINTS_OFF, checkpointsOffData);

/** The workspace as a checkpoint knows it, from a point of the session on. */
export interface WorkspaceState {
  checkpointId: string;
  /** The first entry of the view the state stands for. */
  fromEntryId: number;
  /** The entry that recorded it (a checkpoint or a restore). */
  entryId: number;
  /** The workspace the checkpoint is of; undefined for an entry written before it was recorded. */
  workspace?: CheckpointWorkspace;
}

/**
 * The states a session's view records, in view order: each checkpoint from the entry it stands for
 * on (a `turn_start` one from its turn's `turn/start`), and each restore from its own entry (the
 * files are then its target's). `entries` is the view in order, as the session handle reads it.
 */
export function workspaceStates(entries: readonly Entry[]): WorkspaceState[] {
  const turnStarts = new Map<string, number>();
  const states: WorkspaceState[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    if (entry.name === TURN_START) {
      const turnId = (entry.meta as { turnId?: unknown }).turnId;
      if (typeof turnId === 'string') turnStarts.set(turnId, entry.entryId);
      continue;
    }
    const checkpoint = checkpointOf(entry);
    if (checkpoint !== null) {
      const turnStart = checkpoint.reason === 'turn_start' && checkpoint.turnId !== undefined ? turnStarts.get(checkpoint.turnId) : undefined;
      states.push({ checkpointId: checkpoint.checkpointId, fromEntryId: turnStart ?? entry.entryId, entryId: entry.entryId, ...workspaceOf(checkpoint) });
      continue;
    }
    const restored = restoredOf(entry);
    if (restored !== null) states.push({ checkpointId: restored.toCheckpointId, fromEntryId: entry.entryId, entryId: entry.entryId, ...workspaceOf(restored) });
  }
  return states;
}

const workspaceOf = (data: { workspace?: CheckpointWorkspace }) => (data.workspace !== undefined ? { workspace: data.workspace } : {});

/** The state standing for the workspace at `entryId`: the last one from at or before it; null when none does. */
export function workspaceStateAt(entries: readonly Entry[], entryId: number): WorkspaceState | null {
  let found: WorkspaceState | null = null;
  for (const state of workspaceStates(entries)) if (state.fromEntryId <= entryId && (found === null || state.fromEntryId >= found.fromEntryId)) found = state;
  return found;
}

/** What one turn did to the workspace: its two checkpoints and the files its `turn_end` one lists. */
export interface TurnChanges {
  turnId: string;
  beforeId: string;
  afterId: string;
  /** The `turn_end` checkpoint's entry. */
  entryId: number;
  files: FileChange[];
  filesOmitted: number;
}

/** Every turn of the view that recorded both checkpoints, keyed by turn id. */
export function turnChanges(entries: readonly Entry[]): Map<string, TurnChanges> {
  const starts = new Map<string, string>();
  const turns = new Map<string, TurnChanges>();
  for (const entry of entries) {
    const checkpoint = checkpointOf(entry);
    if (checkpoint === null || checkpoint.turnId === undefined) continue;
    if (checkpoint.reason === 'turn_start') starts.set(checkpoint.turnId, checkpoint.checkpointId);
    else if (checkpoint.reason === 'turn_end') {
      const beforeId = starts.get(checkpoint.turnId) ?? checkpoint.previousId;
      if (beforeId === null) continue;
      turns.set(checkpoint.turnId, {
        turnId: checkpoint.turnId,
        beforeId,
        afterId: checkpoint.checkpointId,
        entryId: entry.entryId,
        files: checkpoint.files,
        filesOmitted: checkpoint.filesOmitted,
      });
    }
  }
  return turns;
}
