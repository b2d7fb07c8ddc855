import * as vscode from 'vscode';
import type { CommandEnvPolicy } from '../../agent/workspace/commandEnv';
import { confine } from '../../agent/workspace/confine';
import { NodeWorkspace } from '../../agent/workspace/nodeWorkspace';
import type {
  Capped,
  CommandOptions,
  CommandResult,
  DirEntry,
  FilePrefix,
  FileStat,
  SearchOptions,
  TextMatch,
  WorkspacePort,
} from '../../agent/workspace/workspacePort';

/**
 * The workspace port inside the editor: the disk through a NodeWorkspace confined to the folder,
 * except that writes go through a WorkspaceEdit, so Undo in the editor takes an edit back and open
 * editors follow it, and reads of a file with unsaved changes see the text the user sees.
 */
export class VsCodeWorkspace implements WorkspacePort {
  private readonly disk: NodeWorkspace;

  /**
   * `folder` is a workspace folder on the file system the extension host sees (scheme `file`);
   * `commandEnv` says which secret-looking variables its commands may see.
   */
  constructor(folder: vscode.Uri, options: { readonly commandEnv?: CommandEnvPolicy } = {}) {
    if (folder.scheme !== 'file') throw new Error(`Agent Tape's tools work on folders on disk; ${folder.toString()} is not one`);
    this.disk = new NodeWorkspace(folder.fsPath, options);
  }

  /** The folder's realpath. */
  get root(): string {
    return this.disk.root;
  }

  async readFile(path: string, maxBytes: number): Promise<FilePrefix> {
    const { real } = await confine(this.disk.root, path);
    const unsaved = vscode.workspace.textDocuments.find((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.fsPath === real);
    if (!unsaved) return this.disk.readFile(path, maxBytes);
    const bytes = Buffer.from(unsaved.getText(), 'utf8');
    return { bytes: bytes.subarray(0, maxBytes), size: bytes.length };
  }

  listDir(path: string): Promise<DirEntry[]> {
    return this.disk.listDir(path);
  }

  findFiles(pattern: string, limit: number): Promise<Capped<string>> {
    return this.disk.findFiles(pattern, limit);
  }

  searchText(pattern: RegExp, options: SearchOptions): Promise<Capped<TextMatch>> {
    return this.disk.searchText(pattern, options);
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.disk.stat(path);
  }

  runCommand(command: string, options: CommandOptions): Promise<CommandResult> {
    return this.disk.runCommand(command, options);
  }

  /**
   * A new file is created with its content (parent folders included); an existing one gets one
   * full-range replace and is saved. Saving also writes any unsaved changes the user had in it:
   * the new content was computed from that text (readFile above), so it is what the edit means.
   */
  async writeFile(path: string, content: string): Promise<void> {
    const { real, rel } = await confine(this.disk.root, path);
    const existing = await this.disk.stat(path);
    if (existing?.kind === 'directory') throw new Error(`${rel} is a directory, not a file`);
    const uri = vscode.Uri.file(real);
    const edit = new vscode.WorkspaceEdit();
    let document: vscode.TextDocument | undefined;
    if (existing === undefined) {
      edit.createFile(uri, { contents: Buffer.from(content, 'utf8') });
    } else {
      document = await vscode.workspace.openTextDocument(uri);
      edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), content);
    }
    if (!(await vscode.workspace.applyEdit(edit)))
      throw new Error(`VS Code refused the edit to ${rel} (the file may have changed or be read-only); it was not changed`);
    if (document && !(await document.save())) throw new Error(`${rel} was edited in the editor but could not be saved`);
  }
}
