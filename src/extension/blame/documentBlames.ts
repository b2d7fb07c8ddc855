import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { checkpointStoreOf } from '../../agent/checkpoints/workspaceCheckpoints';
import { TapeBlame, type BlameRange } from '../../blame/tapeBlame';
import type { TapeStore } from '../../store/tapeStore';
import type { WorkspaceTape } from '../workspaceTape';
import type { BlameActionContext } from './blameActions';

/** A generated file or a log this long is nobody's prompt's work to look up line by line; blaming it would hold the extension host. */
export const MAX_LINES = 100_000;

/** A document's blame and what its actions need from the tape it came from. */
export interface DocumentBlame {
  ranges: BlameRange[];
  /** The document's version the ranges are of. */
  version: number;
  actions: BlameActionContext;
}

/**
 * Agent blame of the workspace's documents from the workspace tape: one `TapeBlame` per store (its
 * index of the tape's edits is kept and brought up to date by it; a read-only window's takeover
 * replaces the store), over the first workspace folder, as `@tape` and its checkpoints work on it.
 * The text blamed is the document's, so unsaved edits are a person's until saved or not.
 */
export class DocumentBlames {
  // A store's TapeBlame keeps its index of the tape's edits; another folder needs another.
  private readonly blames = new WeakMap<TapeStore, TapeBlame>();
  private realRoot: { root: string; real: Promise<string> } | undefined;

  constructor(private readonly tape: WorkspaceTape) {}

  /** The document as a workspace path (`/`-separated, relative to the first folder), or undefined for any other document. */
  relPathOf(document: vscode.TextDocument): string | undefined {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (root === undefined || root.scheme !== 'file' || document.uri.scheme !== 'file') return undefined;
    const rel = path.relative(root.fsPath, document.uri.fsPath);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  /**
   * The document's blame; undefined when it is no workspace file (or one too long to blame). A file
   * no edit on the tape touches has no ranges: nothing to mark, nothing to hover.
   */
  async blame(document: vscode.TextDocument, signal?: AbortSignal): Promise<DocumentBlame | undefined> {
    const relPath = this.relPathOf(document);
    if (relPath === undefined || document.lineCount > MAX_LINES) return undefined;
    const version = document.version;
    const text = document.getText();
    const ws = await this.tape.open();
    const blame = await this.blameOf(ws.store, ws.file);
    const ranges = blame.touches(relPath) ? await blame.blame(relPath, text, signal) : [];
    const reader = this.tape.tapeOf(ws).reader;
    return {
      ranges,
      version,
      actions: {
        positionOf: (sessionId, entryId) => reader.positionOf(sessionId, entryId),
        // Asked when the actions are shown: trust is granted, and a read-only window takes the tape over, while a blame is kept.
        get canRerun() {
          return vscode.workspace.isTrusted && ws.state.mode === 'writable';
        },
      },
    };
  }

  private async blameOf(store: TapeStore, tapeFile: string): Promise<TapeBlame> {
    const workspaceRoot = await this.workspaceRoot();
    let blame = this.blames.get(store);
    if (blame?.options.workspaceRoot !== workspaceRoot) {
      blame = new TapeBlame(store, { workspaceRoot, checkpointsDir: checkpointStoreOf(tapeFile) });
      this.blames.set(store, blame);
    }
    return blame;
  }

  /** The first folder's real path (edits are placed relative to it), looked up once per folder. */
  private workspaceRoot(): Promise<string> {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (root === undefined) return Promise.reject(new Error('agent blame needs a workspace folder'));
    if (this.realRoot?.root !== root) this.realRoot = { root, real: fs.promises.realpath(root) };
    return this.realRoot.real;
  }
}
