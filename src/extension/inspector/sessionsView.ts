import * as vscode from 'vscode';
import type { OpenTape } from '../../agent/session/openTape';
import { childrenBySession, type ChildSession } from '../../store/forks';
import type { SessionSummary } from '../../store/tapeStore';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { SessionTitles } from '../../inspector/sessionTitles';
import { errorMessage } from '../../tape/errorMessage';
import { rerunOfSession } from '../../tape/rerunEntries';
import { codeSpan } from '../tools/markdownCode';
import type { WorkspaceTape } from '../workspaceTape';

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
  /** A root session, or a fork or subagent nested under its parent. */
  relation: 'root' | 'fork' | 'subagent';
  /** A fork's or subagent's state; null for a root. */
  state: ChildSession['state'] | null;
  /** A fork that re-runs a recorded request: it is continued or discarded, never merged. */
  rerun: boolean;
  children: SessionNode[];
}

const ICONS: Record<ChildSession['state'], Record<ChildSession['relation'], string>> = {
  open: { fork: 'repo-forked', subagent: 'hubot' },
  merged: { fork: 'git-merge', subagent: 'git-merge' },
  discarded: { fork: 'circle-slash', subagent: 'circle-slash' },
  linked: { fork: 'link', subagent: 'link' },
};

/** A fork's id names it among its siblings (its title is its parent's until it is asked something new). */
function shortName(node: SessionNode): string {
  if (node.relation !== 'fork') return node.relation;
  const at = node.sessionId.lastIndexOf('::fork::');
  return `fork ${node.sessionId.slice(at + '::fork::'.length)}`;
}

/**
 * The workspace tape's sessions, newest first, with their titles (as the `title` projection names
 * them) and entry counts; forks and subagents nested under their parent with their state. The tape opens when the view is first shown; the tree redraws after appends and
 * when the tape turns writable, and says when it is read-only in this window.
 */
export class SessionsTree implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Titles as the inspector's session picker shows them, cached per open tape (a taken-over tape is a new one). */
  private readonly titles = new WeakMap<OpenTape, SessionTitles>();
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
    const item = new vscode.TreeItem(
      node.title ?? 'Untitled session',
      node.children.length === 0 ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = node.sessionId;
    const entries = `${node.entryCount.toLocaleString('en-US')} ${node.entryCount === 1 ? 'entry' : 'entries'}`;
    item.description = node.state === null ? entries : `${shortName(node)} · ${node.state} · ${entries}`;
    // The title is the tape's (a first prompt, an ingested transcript's): code, so no line break in it can start a heading.
    const tooltip = new vscode.MarkdownString(node.title === null ? 'Untitled session' : codeSpan(node.title));
    tooltip.appendText(`\n\nsession ${node.sessionId}\n${item.description}, last ${new Date(node.lastCreatedAt).toLocaleString()}`);
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(node.relation === 'root' || node.state === null ? 'history' : ICONS[node.state][node.relation]);
    // The menus' `when` clauses match these: Merge only on `session.fork.open`, Discard on a re-run fork's `session.fork.open.rerun` too.
    const kind = node.relation === 'root' || node.state === null ? 'session' : `session.${node.relation}.${node.state}${node.rerun ? '.rerun' : ''}`;
    item.contextValue = node.writable ? kind : `${kind}.readOnly`;
    item.command = { command: 'agentTape.openInspector', title: 'Open Inspector', arguments: [node.sessionId] };
    return item;
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    if (node) return node.children;
    let ws: WorkspaceStore;
    try {
      ws = await this.tape.open();
    } catch (e) {
      this.setMessage(`The workspace tape could not be opened: ${errorMessage(e)}`);
      return [];
    }
    this.follow(ws);
    const writable = ws.state.mode === 'writable';
    if (this.view) this.view.description = writable ? undefined : 'read-only';
    const nodes = this.nest(this.tape.tapeOf(ws), writable);
    this.setMessage(nodes.length === 0 ? "No sessions on this workspace's tape yet. Ask @tape something in the chat, or import a tape file." : undefined);
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

  /**
   * Root sessions newest first, each with its forks and subagents nested under it (and theirs under
   * them). Each session's parent is looked up once; only sessions with children list them, with
   * their states. A child whose parent is not on the tape is shown as a root.
   */
  private nest(tape: OpenTape, writable: boolean): SessionNode[] {
    const { store } = tape;
    const titles = this.titlesOf(tape);
    const sessions = new Map(store.sessions().map((s) => [s.sessionId, s]));
    const family = childrenBySession(store);
    // A child whose parent is not on the tape is shown as a root.
    const nested = new Set([...family].filter(([parent]) => sessions.has(parent)).flatMap(([, kids]) => kids.map((k) => k.sessionId)));
    const node = (s: SessionSummary, relation: SessionNode['relation'], state: SessionNode['state'], seen: ReadonlySet<string>): SessionNode => {
      const within = new Set(seen).add(s.sessionId);
      const children = (family.get(s.sessionId) ?? []).flatMap((c) => {
        const child = sessions.get(c.sessionId);
        // A linked child no longer on the tape has nothing to open; a loop on a damaged tape is cut.
        return child === undefined || within.has(c.sessionId) ? [] : [node(child, c.relation, c.state, within)];
      });
      return {
        sessionId: s.sessionId,
        title: titles.title(s.sessionId),
        entryCount: s.entryCount,
        lastCreatedAt: s.lastCreatedAt,
        writable,
        relation,
        state,
        rerun: relation === 'fork' && rerunOfSession((id) => store.getEntry(s.sessionId, id)) !== null,
        children,
      };
    };
    return [...sessions.values()]
      .filter((s) => !nested.has(s.sessionId))
      .sort((a, b) => b.lastCreatedAt - a.lastCreatedAt)
      .map((s) => node(s, 'root', null, new Set()));
  }

  private titlesOf(tape: OpenTape): SessionTitles {
    let titles = this.titles.get(tape);
    if (titles === undefined) {
      titles = new SessionTitles(tape.reader);
      this.titles.set(tape, titles);
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
