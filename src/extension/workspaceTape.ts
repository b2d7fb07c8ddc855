import * as vscode from 'vscode';
import { OpenTape } from '../agent/session/openTape';
import type { TapeStore } from '../store/tapeStore';
import { WorkspaceStore, type WorkspaceStoreState } from '../store/workspaceStore';
import { errorMessage } from '../tape/errorMessage';
import { workspaceTapeDir } from './tapeLocation';

/**
 * The workspace's tape for this window, opened on first use (activation stays free of sql.js) in
 * the extension's workspace storage. A window with no folder keeps its tape in the global storage.
 * A second window on the same workspace gets it read-only (the core's WorkspaceStore decides) and
 * is told when it becomes writable; the status bar says which.
 */
export class WorkspaceTape implements vscode.Disposable {
  private opening: Promise<WorkspaceStore> | undefined;
  private ready: WorkspaceStore | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<WorkspaceStoreState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly status: vscode.StatusBarItem;
  // The store is replaced when a read-only window takes the tape over: one OpenTape (and fold cache) per store.
  private readonly tapes = new WeakMap<TapeStore, OpenTape>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.status = vscode.window.createStatusBarItem('agentTape.tapeState', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'Agent Tape';
  }

  get directory(): string {
    const storage = this.context.storageUri;
    return storage === undefined ? this.context.globalStorageUri.fsPath : workspaceTapeDir(storage.fsPath);
  }

  /** The store once open() has succeeded, for callers that must not wait (a tool VS Code invokes). */
  get opened(): WorkspaceStore | undefined {
    return this.ready;
  }

  /** The door to the sessions of the workspace store's current TapeStore. */
  tapeOf(ws: WorkspaceStore): OpenTape {
    const store = ws.store;
    let tape = this.tapes.get(store);
    if (tape === undefined) {
      tape = new OpenTape(store);
      this.tapes.set(store, tape);
    }
    return tape;
  }

  /** The open workspace store; rejects with the reason when the tape cannot be opened. */
  open(): Promise<WorkspaceStore> {
    this.opening ??= WorkspaceStore.open(this.directory, {}, (what, e) => this.log.error(`workspace tape: ${what}: ${errorMessage(e)}`)).then(
      (ws) => {
        this.log.info(`workspace tape ${ws.file} opened ${ws.state.mode === 'writable' ? 'writable' : `read-only: ${ws.state.reason}`}`);
        this.show(ws.state);
        this.ready = ws;
        ws.onDidChangeState((s) => {
          this.log.info(`workspace tape is now ${s.mode === 'writable' ? 'writable' : `read-only: ${s.reason}`}`);
          this.show(s);
          this.stateEmitter.fire(s);
        });
        return ws;
      },
      (e: unknown) => {
        this.opening = undefined;
        this.log.error(`could not open the workspace tape in ${this.directory}: ${errorMessage(e)}`);
        throw e;
      },
    );
    return this.opening;
  }

  private show(state: WorkspaceStoreState): void {
    if (state.mode === 'writable') {
      this.status.hide();
      return;
    }
    this.status.text = '$(lock) Tape read-only';
    // The reason names the tape file, whose path may hold characters Markdown reads.
    this.status.tooltip = new vscode.MarkdownString('**Agent Tape**: ').appendText(`${state.reason}. It becomes writable when that window closes.`);
    this.status.accessibilityInformation = { label: `Agent Tape is read-only: ${state.reason}` };
    this.status.show();
  }

  /** Closes the tape (checkpointing it and releasing the lock); the next open() opens it again. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    this.ready = undefined;
    this.status.hide();
    await (await opening?.catch(() => undefined))?.close();
  }

  async dispose(): Promise<void> {
    await this.close();
    this.status.dispose();
    this.stateEmitter.dispose();
  }
}
