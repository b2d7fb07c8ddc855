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
}

let workspaceTape: WorkspaceTape | undefined;

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
  );
  return {
    workspaceTapeFile: async () => (await tape.open()).file,
    closeWorkspaceTape: () => tape.close(),
    workspaceStore: async () => (await tape.open()).store,
    sessionsTree: deps.tree,
    inspectorRequest: (sessionId, method, params) => deps.panels.request(sessionId, method, params),
  };
}

/** Closing the tape checkpoints it and releases the lock, so another window can take it over. */
export async function deactivate(): Promise<void> {
  await workspaceTape?.dispose();
}
