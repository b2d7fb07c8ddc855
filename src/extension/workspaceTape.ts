import * as vscode from 'vscode';
import { checkpointStoreOf, tapeFileExclusions, WorkspaceCheckpoints } from '../agent/checkpoints/workspaceCheckpoints';
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
  // One per tape file and workspace folder while the tape is open: it holds the checkpoint store's
  // open state and which sessions have checkpoints off; a takeover changes the store, not the file.
  private readonly checkpoints = new Map<string, WorkspaceCheckpoints>();
  // Each `whenOpen` caller, with what it attached to the open store (undone before that store closes).
  private readonly attached = new Map<(ws: WorkspaceStore) => vscode.Disposable, vscode.Disposable | undefined>();

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

  /**
   * The workspace checkpoints beside the tape file (`<tape>.checkpoints`) for the folder `root`,
   * shared by every chat turn, restore and checkpoint document of this window. The tape's own
   * files and the store are never taken in, should the storage ever lie inside the folder.
   */
  checkpointsOf(ws: WorkspaceStore, root: string): WorkspaceCheckpoints {
    const key = `${ws.file}\0${root}`;
    let checkpoints = this.checkpoints.get(key);
    if (checkpoints === undefined) {
      checkpoints = new WorkspaceCheckpoints(checkpointStoreOf(ws.file), root, { exclude: tapeFileExclusions(ws.file) });
      this.checkpoints.set(key, checkpoints);
    }
    return checkpoints;
  }

  /** The open workspace store; rejects with the reason when the tape cannot be opened. */
  open(): Promise<WorkspaceStore> {
    const onNearlyFull = (warning: string): void => this.warnNearlyFull(warning);
    this.opening ??= WorkspaceStore.open(this.directory, { onNearlyFull }, (what, e) => this.log.error(`workspace tape: ${what}: ${errorMessage(e)}`)).then(
      (ws) => {
        this.log.info(`workspace tape ${ws.file} opened ${ws.state.mode === 'writable' ? 'writable' : `read-only: ${ws.state.reason}`}`);
        this.show(ws.state);
        this.ready = ws;
        for (const attach of this.attached.keys()) this.attached.set(attach, this.attachTo(ws, attach));
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

  /** Once per open store, near its size limit (tapeSize.ts): what to do, and the button to start doing it. */
  private warnNearlyFull(warning: string): void {
    this.log.warn(warning);
    const exportSession = 'Export a Session…';
    void vscode.window.showWarningMessage(`Agent Tape: ${warning}`, exportSession).then((picked) => {
      if (picked === exportSession) void vscode.commands.executeCommand('agentTape.exportSession');
    });
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

  /**
   * Calls `attach` with the store whenever one opens (now, if one is open), and disposes what it
   * returned before that store closes: a listener that must see every append from the first and
   * read the store to its end. Called before the open() callers' own continuations run.
   */
  whenOpen(attach: (ws: WorkspaceStore) => vscode.Disposable): vscode.Disposable {
    this.attached.set(attach, this.ready === undefined ? undefined : this.attachTo(this.ready, attach));
    return {
      dispose: () => {
        this.attached.get(attach)?.dispose();
        this.attached.delete(attach);
      },
    };
  }

  // A part that fails to attach must not fail the tape's opening for every other part.
  private attachTo(ws: WorkspaceStore, attach: (ws: WorkspaceStore) => vscode.Disposable): vscode.Disposable | undefined {
    try {
      return attach(ws);
    } catch (e) {
      this.log.error(`workspace tape: a part could not attach to it: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** Closes the tape (checkpointing it and releasing the lock); the next open() opens it again. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    this.ready = undefined;
    for (const [attach, attachment] of this.attached) {
      attachment?.dispose();
      this.attached.set(attach, undefined);
    }
    // Its storage may be cleared next: the checkpoint store beside it is opened again with the tape.
    this.checkpoints.clear();
    this.status.hide();
    await (await opening?.catch(() => undefined))?.close();
  }

  async dispose(): Promise<void> {
    await this.close();
    this.status.dispose();
    this.stateEmitter.dispose();
  }
}
