import * as path from 'path';
import { errorMessage } from '../../tape/errorMessage';
import type { CheckpointReason } from '../../tape/workspaceCheckpoint';
import { CheckpointStore, WorkspaceTooLargeError, type CheckpointStoreOptions } from './checkpointStore';
import { GitMissingError } from './shadowGit';
import type { CheckpointTaken, TurnCheckpoints } from './turnCheckpoints';

/**
 * A host's checkpoints of one workspace, for every session that works in it: the store is opened
 * on the first checkpoint. When git is missing, the workspace is over a limit or a snapshot fails,
 * checkpoints are off for that session from then on, said once; the turn goes on either way.
 */
export class WorkspaceCheckpoints implements TurnCheckpoints {
  private store: Promise<CheckpointStore> | undefined;
  private readonly off = new Set<string>();

  constructor(
    private readonly storeDir: string,
    private readonly workspaceRoot: string,
    private readonly options: CheckpointStoreOptions = {},
  ) {}

  /** The store, opened once (a failed open is tried again next time). */
  open(): Promise<CheckpointStore> {
    this.store ??= CheckpointStore.open(this.storeDir, this.workspaceRoot, this.options).catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }

  async take(sessionId: string, reason: CheckpointReason, turnId: string, diffFrom?: string): Promise<CheckpointTaken | null> {
    if (this.off.has(sessionId)) return null;
    try {
      const store = await this.open();
      const snapshot = await store.snapshot(diffFrom !== undefined ? { diffFrom } : {});
      return { kind: 'checkpoint', data: { ...snapshot, reason, turnId, workspace: store.workspace } };
    } catch (error) {
      this.off.add(sessionId);
      if (error instanceof GitMissingError) return { kind: 'off', data: { reason: 'git_missing', message: `no checkpoints: ${error.message}` } };
      if (error instanceof WorkspaceTooLargeError) return { kind: 'off', data: { reason: 'too_large', message: `no checkpoints: ${error.message}` } };
      return { kind: 'off', data: { reason: 'failed', message: `no checkpoints: a checkpoint failed: ${errorMessage(error)}` } };
    }
  }
}

/** Where a tape file's checkpoint store lives: beside it. */
export const checkpointStoreOf = (tapeFile: string): string => `${tapeFile}.checkpoints`;

/**
 * What every store of a tape file's checkpoints leaves out: the tape (its journal and lock start
 * with its name) and the store. Whoever opens the store passes it, so every snapshot of a workspace
 * holding the tape sees the same files: one without it would list the tape as a file a restore removes.
 */
export const tapeFileExclusions = (tapeFile: string): string[] => [path.resolve(tapeFile), checkpointStoreOf(path.resolve(tapeFile))];
