import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { InspectorController, type InspectorHost, type InspectorSource } from '../../inspector/inspectorController';
import type { HostToInspector } from '../../protocol/inspector';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { errorMessage } from '../../tape/errorMessage';
import type { ActiveSession } from '../activeSession';
import type { WorkspaceTape } from '../workspaceTape';
import { amendFromInspector } from './amendFromInspector';
import { hostInspector, loadInspectorPage, type HostedInspector } from './inspectorWebview';
import { followReplayCursor } from './replayFollow';

/**
 * The view type of an inspector panel. It also names the panel's source: a panel always shows
 * the workspace tape (a tape file opens in the custom editor, which VS Code restores by its URI).
 */
export const INSPECTOR_PANEL = 'agentTape.inspector';

/**
 * What a panel restored after a reload needs from the state the page saved (the page keeps more:
 * view, filter, selection, scroll; see webview/inspector/state.ts). It comes from disk, so it is
 * parsed; anything else is ignored.
 */
const savedPageState = z.looseObject({ sessionId: z.nullable(z.string()) });

interface PanelsDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  tape: WorkspaceTape;
  sessions: ActiveSession;
}

interface OpenPanel {
  panel: vscode.WebviewPanel;
  hosted: HostedInspector;
}

const sourceOf = (tape: WorkspaceTape, ws: WorkspaceStore): InspectorSource => ({
  store: ws.store,
  reader: tape.tapeOf(ws).reader,
  label: 'Workspace tape',
  readOnly: ws.state.mode === 'readOnly',
});

/**
 * The inspector panels of the workspace tape: one per session, revealed when asked for again,
 * restored after a reload of the window, and moved to the new store when the tape turns writable
 * (another window let go of it and the WorkspaceStore reopened it). They follow a replay of the
 * workspace tape's file.
 */
export class InspectorPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly open = new Set<OpenPanel>();
  private readonly stateWatch: vscode.Disposable;
  private readonly cursorWatch: vscode.Disposable;

  constructor(private readonly deps: PanelsDeps) {
    this.stateWatch = deps.tape.onDidChangeState(() => {
      const ws = deps.tape.opened;
      if (ws) for (const p of this.open) p.hosted.controller.setSource(sourceOf(deps.tape, ws));
    });
    this.cursorWatch = followReplayCursor(
      () => deps.tape.opened?.file,
      () => [...this.open].map((p) => p.hosted.controller),
    );
  }

  /**
   * Shows the inspector on `sessionId`, else on the session the palette commands act on; with
   * `entryId` (a position of the session's view), that entry selected in the Entries view.
   */
  async show(sessionId?: string, entryId?: number): Promise<void> {
    const ws = await this.deps.tape.open();
    const session = sessionId ?? this.deps.sessions.current(ws.store);
    let shown = [...this.open].find((p) => session !== undefined && p.hosted.controller.sessionId === session);
    if (shown) shown.panel.reveal();
    else {
      const panel = vscode.window.createWebviewPanel(INSPECTOR_PANEL, 'Tape Inspector', vscode.ViewColumn.Active, { enableFindWidget: true });
      shown = this.attach(panel, ws, session);
    }
    if (entryId !== undefined) shown.hosted.controller.reveal(entryId);
  }

  /** Shows the inspector on `sessionId` with the report of its evaluation `evalSessionId` open. */
  async showEvaluation(sessionId: string, evalSessionId: string): Promise<void> {
    await this.show(sessionId);
    for (const p of this.open) if (p.hosted.controller.sessionId === sessionId) p.hosted.controller.showEvaluation(evalSessionId);
  }

  /** Shows the inspector on `sessionId` with the Anchors view open on the anchor `anchorEntryId` ("Review" on a compaction). */
  async showAnchor(sessionId: string, anchorEntryId: number): Promise<void> {
    const ws = await this.deps.tape.open();
    if (!ws.store.sessions().some((s) => s.sessionId === sessionId)) throw new Error(`the workspace tape has no session ${JSON.stringify(sessionId)}`);
    await this.show(sessionId);
    for (const p of this.open) if (p.hosted.controller.sessionId === sessionId) p.hosted.controller.showAnchor(anchorEntryId);
  }

  /**
   * For integration tests: the reply a page of the workspace tape's inspector on `sessionId` gets
   * to one request, through a controller with the very host a panel has (amendments included), so
   * a test presses what the page presses without reaching into the webview.
   */
  async request(sessionId: string, method: string, params: unknown): Promise<unknown> {
    const ws = await this.deps.tape.open();
    const replies: HostToInspector[] = [];
    const host: InspectorHost = { post: (m) => replies.push(m), copy: () => undefined, command: () => undefined, amend: this.amend };
    const controller = new InspectorController(sourceOf(this.deps.tape, ws), host, { sessionId });
    try {
      await controller.handle({ type: 'request', id: 1, method, params });
    } finally {
      controller.dispose();
    }
    const reply = replies.find((m) => m.type === 'reply');
    if (reply === undefined) throw new Error(`no reply to ${method}`);
    if (!reply.ok) throw new Error(reply.error);
    return reply.result;
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = savedPageState.safeParse(state);
    // No saved state (the page never got to save one) is not worth a warning; a wrong shape is.
    if (!saved.success && state !== undefined && state !== null)
      this.deps.log.warn(`inspector panel: ignored a saved state of another shape: ${z.prettifyError(saved.error)}`);
    let ws: WorkspaceStore;
    try {
      ws = await this.deps.tape.open();
    } catch (e) {
      panel.dispose();
      void vscode.window.showErrorMessage(`Agent Tape: the inspector could not reopen the workspace tape: ${errorMessage(e)}`);
      return;
    }
    this.attach(panel, ws, saved.data?.sessionId ?? this.deps.sessions.current(ws.store));
  }

  /** Closes the panels on a session that no longer exists (it was deleted). */
  closeSession(sessionId: string): void {
    for (const p of [...this.open]) if (p.hosted.controller.sessionId === sessionId) p.panel.dispose();
  }

  dispose(): void {
    this.stateWatch.dispose();
    this.cursorWatch.dispose();
    for (const p of [...this.open]) p.panel.dispose();
  }

  private readonly amend: NonNullable<InspectorHost['amend']> = (sessionId, anchorEntryId, amendment) =>
    amendFromInspector(this.deps, sessionId, anchorEntryId, amendment);

  private attach(panel: vscode.WebviewPanel, ws: WorkspaceStore, sessionId: string | undefined): OpenPanel {
    loadInspectorPage(panel.webview, this.deps.context, 'Tape Inspector');
    panel.iconPath = vscode.Uri.joinPath(this.deps.context.extensionUri, 'media', 'icon.png');
    const hosted = hostInspector(panel.webview, sourceOf(this.deps.tape, ws), this.deps, {
      ...(sessionId === undefined ? {} : { sessionId }),
      amend: this.amend,
      // The page can switch sessions; the tab follows with the session's title.
      onSource: (m) => {
        const shown = m.sessions.find((s) => s.sessionId === m.sessionId);
        panel.title = shown ? `Tape: ${shown.title ?? shown.sessionId}` : 'Tape Inspector';
      },
    });
    const entry = { panel, hosted };
    this.open.add(entry);
    // Without retainContextWhenHidden a hidden panel's page is gone; it loads again when shown.
    const visibility = panel.onDidChangeViewState(() => {
      if (!panel.visible) hosted.controller.pageUnloaded();
    });
    panel.onDidDispose(() => {
      this.open.delete(entry);
      visibility.dispose();
      hosted.dispose();
    });
    return entry;
  }
}
