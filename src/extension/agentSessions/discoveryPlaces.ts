import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { DiscoveryPlaces } from '../../ingest/sessionDiscovery';

/**
 * Where this window's agents keep its sessions: the first folder's path, the home folder, and VS
 * Code's own storage folders, the parents of this extension's (VS Code's chats are in
 * `workspaceStorage/<id>/chatSessions`, Cline's and Roo's tasks in `globalStorage/<extension id>`).
 * Undefined without a folder on disk: the sessions listed are those of its path.
 */
export function discoveryPlacesOf(context: vscode.ExtensionContext): DiscoveryPlaces | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (folder === undefined || folder.scheme !== 'file') return undefined;
  const storage = context.storageUri?.scheme === 'file' ? path.dirname(context.storageUri.fsPath) : undefined;
  const global = context.globalStorageUri.scheme === 'file' ? path.dirname(context.globalStorageUri.fsPath) : undefined;
  return { workspace: folder.fsPath, home: os.homedir(), workspaceStorage: storage, globalStorage: global };
}
