import * as vscode from 'vscode';
import type { OpenTape } from '../../agent/session/openTape';
import { childrenBySession, type ChildSession } from '../../store/forks';
import { sessionAgentOf } from '../../store/sessionAgent';
import { sessionUsages } from '../../store/sessionUsage';
import type { SessionSummary } from '../../store/tapeStore';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { SessionTitles } from '../../inspector/sessionTitles';
import { errorMessage } from '../../tape/errorMessage';
import { rerunOfSession } from '../../tape/evaluation/rerunEntries';
import { addUsage, NO_USAGE, sameUsage, usageDetail, usageLine, type UsageFigures } from '../../tape/usage/usageFigures';
import type { SessionUsage } from '../../tape/usage/usageRollup';
import { agentLabel } from '../agentLabel';
import { codeSpan } from '../tools/markdownCode';
import type { WorkspaceTape } from '../workspaceTape';

/**
 * The "Tape Sessions" tree (package.json `views`). Not `agentTape.`-prefixed: VS Code derives
 * commands from a view's id (`<id>.focus`, …), which would then pass for the extension's own.
 */
export const SESSIONS_VIEW = 'agentTapeSessions';

/** Appends come in bursts (a streamed answer is revised many times): the tree redraws once per burst. */
const REFRESH_MS = 300;

/** One session of the workspace tape, as a row of the tree and the argument of its context actions. */
export interface SessionNode {
  kind: 'session';
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
  /** Its requests and tokens, its own and with every subagent and fork below it. */
  usage: SessionUsage;
  children: SessionNode[];
}

/** The top rows: one agent's sessions (src/tape/usage/usageStats.ts agentOf), newest first. No session actions. */
export interface AgentGroupNode {
  kind: 'agent';
  /** The agent's name on the tape (`agent-tape`, an ingest format). */
  agent: string;
  label: string;
  sessions: SessionNode[];
  /** Its sessions' roll-ups added up: every session of the group once. */
  usage: UsageFigures;
  /** Subagents and forks nested in its sessions. */
  nested: number;
}

export type SessionsTreeNode = AgentGroupNode | SessionNode;

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

const countNested = (node: SessionNode): number => node.children.reduce((n, c) => n + 1 + countNested(c), 0);

/**
 * The workspace tape's sessions grouped by agent, newest first, with their titles (as the `title`
 * projection names them), entry counts and requests and tokens (rolled up over their subagents and
 * forks); forks and subagents nested under their parent with their state. The tape opens when the
 * view is first shown; the tree redraws after appends and when the tape turns writable, and says
 * when it is read-only in this window.
 */
export class SessionsTree implements vscode.TreeDataProvider<SessionsTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Titles as the inspector's session picker shows them, cached per open tape (a taken-over tape is a new one). */
  private readonly titles = new WeakMap<OpenTape, SessionTitles>();
  private watched: WorkspaceStore | undefined;
  private watch: { dispose(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  view: vscode.TreeView<SessionsTreeNode> | undefined;

  constructor(
    private readonly tape: WorkspaceTape,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Redraws soon, once for a burst of changes. */
  refresh(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.changed.fire(), REFRESH_MS);
  }

  getTreeItem(node: SessionsTreeNode): vscode.TreeItem {
    return node.kind === 'agent' ? this.groupItem(node) : this.sessionItem(node);
  }

  private groupItem(group: AgentGroupNode): vscode.TreeItem {
    const item = new vscode.TreeItem(group.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `agent/${group.agent}`;
    const count = `${group.sessions.length.toLocaleString('en-US')} ${group.sessions.length === 1 ? 'session' : 'sessions'}`;
    item.description = group.usage.requests === 0 ? count : `${count} · ${usageLine(group.usage)}`;
    const nested =
      group.nested === 0 ? '' : ` (and ${group.nested.toLocaleString('en-US')} ${group.nested === 1 ? 'subagent or fork' : 'subagents and forks'})`;
    item.tooltip = `${group.label}: ${count}${nested}\n${usageDetail(group.usage)}`;
    item.iconPath = new vscode.ThemeIcon('account');
    // Not `session…`: no session action matches a group.
    item.contextValue = 'agentGroup';
    return item;
  }

  private sessionItem(node: SessionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.title ?? 'Untitled session',
      node.children.length === 0 ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = `session/${node.sessionId}`;
    const entries = `${node.entryCount.toLocaleString('en-US')} ${node.entryCount === 1 ? 'entry' : 'entries'}`;
    const facts = node.state === null ? entries : `${shortName(node)} · ${node.state} · ${entries}`;
    const { own, rolledUp, descendants } = node.usage;
    item.description = rolledUp.requests === 0 ? facts : `${facts} · ${usageLine(rolledUp)}`;
    // The title is the tape's (a first prompt, an ingested transcript's): code, so no line break in it can start a heading.
    const tooltip = new vscode.MarkdownString(node.title === null ? 'Untitled session' : codeSpan(node.title));
    tooltip.appendText(`\n\nsession ${node.sessionId}\n${facts}, last ${new Date(node.lastCreatedAt).toLocaleString()}`);
    if (rolledUp.requests > 0)
      tooltip.appendText(
        sameUsage(own, rolledUp)
          ? `\n${usageDetail(own)}`
          : `\nown: ${usageDetail(own)}\nwith its ${descendants.toLocaleString('en-US')} ${descendants === 1 ? 'subagent or fork' : 'subagents and forks'}: ${usageDetail(rolledUp)}`,
      );
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(node.relation === 'root' || node.state === null ? 'history' : ICONS[node.state][node.relation]);
    // The menus' `when` clauses match these: Merge only on `session.fork.open`, Discard on a re-run fork's `session.fork.open.rerun` too.
    const kind = node.relation === 'root' || node.state === null ? 'session' : `session.${node.relation}.${node.state}${node.rerun ? '.rerun' : ''}`;
    item.contextValue = node.writable ? kind : `${kind}.readOnly`;
    item.command = { command: 'agentTape.openInspector', title: 'Open Inspector', arguments: [node.sessionId] };
    return item;
  }

  async getChildren(node?: SessionsTreeNode): Promise<SessionsTreeNode[]> {
    if (node) return node.kind === 'agent' ? node.sessions : node.children;
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
    const groups = this.groups(this.tape.tapeOf(ws), writable);
    this.setMessage(groups.length === 0 ? "No sessions on this workspace's tape yet. Ask @tape something in the chat, or import a tape file." : undefined);
    return groups;
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
   * One group per agent, the agent with the newest session first; in each, its root sessions newest
   * first, each with its forks and subagents nested under it (and theirs under them). Each
   * session's parent is looked up once; only sessions with children list them, with their states. A
   * child whose parent is not on the tape is shown as a root. A nested session stays in its root's
   * group, whichever agent it is (a fork of a Claude Code session is continued here).
   */
  private groups(tape: OpenTape, writable: boolean): AgentGroupNode[] {
    const { store } = tape;
    const titles = this.titlesOf(tape);
    const sessions = new Map(store.sessions().map((s) => [s.sessionId, s]));
    const family = childrenBySession(store);
    const usages = sessionUsages(store, family, sessions.keys());
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
        kind: 'session',
        sessionId: s.sessionId,
        title: titles.title(s.sessionId),
        entryCount: s.entryCount,
        lastCreatedAt: s.lastCreatedAt,
        writable,
        relation,
        state,
        rerun: relation === 'fork' && rerunOfSession((id) => store.getEntry(s.sessionId, id)) !== null,
        usage: usages.get(s.sessionId) ?? { own: NO_USAGE, rolledUp: NO_USAGE, descendants: 0 },
        children,
      };
    };
    const byAgent = new Map<string, AgentGroupNode>();
    const roots = [...sessions.values()].filter((s) => !nested.has(s.sessionId)).sort((a, b) => b.lastCreatedAt - a.lastCreatedAt);
    for (const s of roots) {
      const agent = sessionAgentOf(store, s.sessionId);
      let group = byAgent.get(agent);
      if (group === undefined) byAgent.set(agent, (group = { kind: 'agent', agent, label: agentLabel(agent), sessions: [], usage: NO_USAGE, nested: 0 }));
      const row = node(s, 'root', null, new Set());
      group.sessions.push(row);
      group.usage = addUsage(group.usage, row.usage.rolledUp);
      group.nested += countNested(row);
    }
    // Roots come newest first, so each agent's first session decides its place.
    return [...byAgent.values()];
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
