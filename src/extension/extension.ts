import * as vscode from 'vscode';
import type { TapeStore } from '../store/tapeStore';
import { ActiveSession } from './activeSession';
import { registerFollowAgentSessions } from './agentSessions/followAgentSessions';
import { registerImportAgentSessions } from './agentSessions/importAgentSessions';
import { registerBlame } from './blame/registerBlame';
import { registerParticipant } from './chat/participant';
import { registerCheckpoints } from './checkpoints/registerCheckpoints';
import { registerCommands } from './commands';
import { registerCompareSessions } from './compareCommand';
import type { Deps } from './deps';
import { registerForkCommands } from './forkCommands';
import { InspectorPanels } from './inspector/inspectorPanel';
import { registerInspector } from './inspector/registerInspector';
import { SessionsTree } from './inspector/sessionsView';
import { registerOwnProvider } from './model/registerOwnProvider';
import { registerHeaderSecrets } from './otlp/headerSecrets';
import { LiveExport } from './otlp/liveExport';
import { registerReplay } from './replay/registerReplay';
import { registerVerifyReplay } from './replay/verifyCommand';
import { registerRerun } from './rerun/registerRerun';
import { registerSampleTape } from './sampleTape';
import { registerSearchSessions } from './search/searchSessions';
import { registerSessionCommands } from './sessionCommands';
import { registerLmTools } from './tools/lmTools';
import { WorkspaceTape } from './workspaceTape';

/** What the extension offers other extensions (and its own integration tests). */
export interface AgentTapeApi {
  /** The workspace tape's file, opening the tape if needed. */
  workspaceTapeFile(): Promise<string>;
  /** Closes the workspace tape (it reopens on next use), e.g. before its storage is cleared. */
  closeWorkspaceTape(): Promise<void>;
  /** The workspace tape's open store (the one the extension writes), for tests that build sessions entry by entry. */
  workspaceStore(): Promise<TapeStore>;
  /** The "Tape Sessions" view's rows, as VS Code asks for them. */
  sessionsTree: SessionsTree;
  /**
   * One request as an inspector page on the workspace tape sends it (the Anchors view's Pin, say),
   * through a panel's own controller and host; resolves to its reply, rejects with a refusal.
   */
  inspectorRequest(sessionId: string, method: string, params: unknown): Promise<unknown>;
  /** The OpenTelemetry live export's status bar item as shown; undefined while live export is off and the item hidden. */
  otlpStatusItem(): { text: string; tooltip: string } | undefined;
}

let workspaceTape: WorkspaceTape | undefined;
let liveExport: LiveExport | undefined;

/**
 * Activation is lazy (the chat participant, the model provider, a tool or a command): nothing
 * here loads sql.js or touches the disk; the tape opens on first use.
 */
export function activate(context: vscode.ExtensionContext): AgentTapeApi {
  const log = vscode.window.createOutputChannel('Agent Tape', { log: true });
  context.subscriptions.push(log);
  log.info(`Agent Tape ${context.extension.packageJSON.version as string} activated`);
  const tape = new WorkspaceTape(context, log);
  workspaceTape = tape;
  const parts = { context, log, tape, sessions: new ActiveSession() };
  const deps: Deps = { ...parts, panels: new InspectorPanels(parts), tree: new SessionsTree(tape, log) };
  context.subscriptions.push(
    registerCommands(deps),
    registerOwnProvider(deps),
    registerSampleTape(deps),
    registerInspector(deps),
    registerImportAgentSessions(deps),
    registerFollowAgentSessions(deps),
    registerParticipant(deps),
    registerSessionCommands(deps),
    registerReplay(deps),
    registerVerifyReplay(deps),
    registerCompareSessions(deps),
    registerSearchSessions(deps),
    registerRerun(deps),
    registerForkCommands(deps),
    registerCheckpoints(deps),
    registerLmTools(deps),
    registerBlame(deps),
    registerHeaderSecrets(deps),
  );
  const live = new LiveExport(deps);
  liveExport = live;
  context.subscriptions.push(live);
  return {
    workspaceTapeFile: async () => (await tape.open()).file,
    closeWorkspaceTape: () => tape.close(),
    workspaceStore: async () => (await tape.open()).store,
    sessionsTree: deps.tree,
    inspectorRequest: (sessionId, method, params) => deps.panels.request(sessionId, method, params),
    otlpStatusItem: () => live.shown,
  };
}

/**
 * Closing the tape checkpoints it and releases the lock, so another window can take it over. Live
 * export reads its open turns from the tape first and has a moment to send them.
 */
export async function deactivate(): Promise<void> {
  await liveExport?.close();
  await workspaceTape?.dispose();
}
