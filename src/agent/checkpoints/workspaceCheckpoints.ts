import * as path from 'path';
import { errorMessage } from '../../tape/errorMessage';
import type { CheckpointReason } from '../../tape/workspaceCheckpoint';
import { TAPE_TOOLS } from '../tools/tapeTools';
import { findFilesTool } from '../tools/findFiles';
import { listDirTool } from '../tools/listDir';
import { readFileTool } from '../tools/readFile';
import { searchTextTool } from '../tools/searchText';
import { CheckpointStore, WorkspaceTooLargeError, type CheckpointStoreOptions } from './checkpointStore';
import { GitMissingError } from './shadowGit';
import type { CheckpointTaken, TurnCheckpoints } from './turnCheckpoints';

/** The core's tools that never change a file; any other tool (the host's too) may, so a checkpoint precedes it. */
const READ_ONLY_TOOLS = new Set([readFileTool, listDirTool, findFilesTool, searchTextTool, ...TAPE_TOOLS].map((t) => t.name));

export const mayChangeFiles = (toolName: string): boolean => !READ_ONLY_TOOLS.has(toolName);

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

  mayChangeFiles(toolName: string): boolean {
    return mayChangeFiles(toolName);
  }

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
