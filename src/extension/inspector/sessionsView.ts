import * as vscode from 'vscode';
import type { TapeStore } from '../../store/tapeStore';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { SessionTitles } from '../../inspector/sessionTitles';
import { describe, type WorkspaceTape } from '../workspaceTape';

/**
 * The "Tape Sessions" tree (package.json `views`). Not `agentTape.`-prefixed: VS Code derives
 * commands from a view's id (`<id>.focus`, …), which would then pass for the extension's own.
 */
const SESSIONS_VIEW = 'agentTapeSessions';

/** Appends come in bursts (a streamed answer is revised many times): the tree redraws once per burst. */
const REFRESH_MS = 300;

/** One session of the workspace tape, as a row of the tree and the argument of its context actions. */
export interface SessionNode {
  sessionId: string;
  title: string | null;
  entryCount: number;
  lastCreatedAt: number;
  /** Whether this window may write the tape: compact, handoff and delete need it. */
  writable: boolean;
}

/**
 * The workspace tape's sessions, newest first, with their titles (as the `title` projection names
 * them) and entry counts. The tape opens when the view is first shown; the tree redraws after appends and
 * when the tape turns writable, and says when it is read-only in this window.
 */
export class SessionsTree implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Titles as the inspector's session picker shows them, cached per store (a taken-over tape is a new one). */
  private readonly titles = new WeakMap<TapeStore, SessionTitles>();
  private watched: WorkspaceStore | undefined;
  private watch: { dispose(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  view: vscode.TreeView<SessionNode> | undefined;

  constructor(
    private readonly tape: WorkspaceTape,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Redraws soon, once for a burst of changes. */
  refresh(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.changed.fire(), REFRESH_MS);
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.title ?? 'Untitled session', vscode.TreeItemCollapsibleState.None);
    item.id = node.sessionId;
    item.description = `${node.entryCount.toLocaleString('en-US')} ${node.entryCount === 1 ? 'entry' : 'entries'}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(`${node.title ?? 'Untitled session'}\n\nsession ${node.sessionId}\n${item.description}, last ${new Date(node.lastCreatedAt).toLocaleString()}`);
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon('history');
    item.contextValue = node.writable ? 'session' : 'session.readOnly';
    item.command = { command: 'agentTape.openInspector', title: 'Open Inspector', arguments: [node.sessionId] };
    return item;
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    if (node) return [];
    let ws: WorkspaceStore;
    try {
      ws = await this.tape.open();
    } catch (e) {
      this.setMessage(`The workspace tape could not be opened: ${describe(e)}`);
      return [];
    }
    this.follow(ws);
    const writable = ws.state.mode === 'writable';
    if (this.view) this.view.description = writable ? undefined : 'read-only';
    const titles = this.titlesOf(ws.store);
    const nodes = ws.store
      .sessions()
      .sort((a, b) => b.lastCreatedAt - a.lastCreatedAt)
      .map((s) => ({ sessionId: s.sessionId, title: titles.title(s.sessionId), entryCount: s.entryCount, lastCreatedAt: s.lastCreatedAt, writable }));
    this.setMessage(nodes.length === 0 ? 'No sessions on this workspace\'s tape yet. Ask @tape something in the chat, or import a tape file.' : undefined);
    return nodes;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watch?.dispose();
    this.changed.dispose();
  }

  private setMessage(message: string | undefined): void {
    if (this.view) this.view.message = message;
  }

  private titlesOf(store: TapeStore): SessionTitles {
    let titles = this.titles.get(store);
    if (titles === undefined) {
      titles = new SessionTitles(store);
      this.titles.set(store, titles);
    }
    return titles;
  }

  /** Listens to the open workspace store (a closed and reopened tape is a new WorkspaceStore). */
  private follow(ws: WorkspaceStore): void {
    if (this.watched === ws) return;
    this.watch?.dispose();
    this.watched = ws;
    const appends = ws.onDidAppend(() => this.refresh());
    const state = ws.onDidChangeState(() => {
      this.log.info('sessions view: the tape changed hands; redrawing');
      this.refresh();
    });
    this.watch = { dispose: () => (appends.dispose(), state.dispose()) };
  }
}

/** Registers the tree; the provider is returned so commands (and tests) can refresh and read it. */
export function registerSessionsView(tape: WorkspaceTape, log: vscode.LogOutputChannel): { tree: SessionsTree; disposables: vscode.Disposable[] } {
  const tree = new SessionsTree(tape, log);
  const view = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: tree, showCollapseAll: false });
  tree.view = view;
  return { tree, disposables: [view, tree] };
}
