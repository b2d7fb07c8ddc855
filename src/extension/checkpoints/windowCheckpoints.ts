import * as vscode from 'vscode';
import type { CheckpointStore } from '../../agent/checkpoints/checkpointStore';
import type { WorkspaceStore } from '../../store/workspaceStore';
import type { WorkspaceTape } from '../workspaceTape';

/** The folder this window's checkpoints are of: the first workspace folder, as `@tape` works on it. */
export function checkpointRoot(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (root === undefined || root.scheme !== 'file') throw new Error('file checkpoints are of a folder on this machine: open one first');
  return root.fsPath;
}

/** The checkpoint store beside the workspace tape, the one the chat's turns write (opened once, made when missing). */
export async function openCheckpointStore(tape: WorkspaceTape, ws?: WorkspaceStore): Promise<CheckpointStore> {
  return tape.checkpointsOf(ws ?? (await tape.open()), checkpointRoot()).open();
}
