import * as vscode from 'vscode';
import { registerParticipant } from './chat/participant';
import { registerCheckpoints } from './checkpoints/registerCheckpoints';
import { registerCommands } from './commands';
import { registerForkCommands } from './forkCommands';
import { registerInspector } from './inspector/registerInspector';
import type { SessionsTree } from './inspector/sessionsView';
import { registerSessionCommands } from './sessionCommands';
import { registerVerifyReplay } from './replay/verifyCommand';
import { registerCompareSessions } from './compareCommand';
import { registerReplay } from './replay/registerReplay';
import { registerRerun } from './rerun/registerRerun';
import { registerSearchSessions } from './search/searchSessions';
import type { TapeStore } from '../store/tapeStore';
import { FollowedTranscripts } from '../ingest/follow';
import { discoveryPlacesOf } from './agentSessions/discoveryPlaces';
import { registerFollowAgentSessions } from './agentSessions/followAgentSessions';
import { registerImportAgentSessions, type IngestFile } from './agentSessions/importAgentSessions';
import { ActiveSession } from './activeSession';
import { registerModelCommands } from './model/modelCommands';
import { registerSampleTape } from './sampleTape';
import { registerOwnProvider } from './model/ownProvider';
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
  registerCommands(context, log);
  const tape = new WorkspaceTape(context, log);
  workspaceTape = tape;
  const deps = { context, log, tape, sessions: new ActiveSession() };
  const provider = registerOwnProvider(context, log);
  const inspector = registerInspector(deps);
  const agents = { log, tape, ingest: ingestAgentTranscript, places: () => discoveryPlacesOf(context) };
  context.subscriptions.push(
    registerImportAgentSessions(agents),
    registerFollowAgentSessions(agents),
    ...inspector.disposables,
    provider,
    ...registerModelCommands(context, log, provider),
    ...registerSampleTape(context),
    registerParticipant(deps),
    ...registerSessionCommands(deps),
    ...registerReplay(deps),
    ...registerVerifyReplay(deps),
    ...registerCompareSessions(deps),
    registerSearchSessions(deps),
    ...registerRerun({ ...deps, panels: inspector.panels }),
    ...registerForkCommands({ ...deps, tree: inspector.tree }),
    ...registerCheckpoints(deps),
    registerLmTools({
      workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri,
      // Outside @tape (agent mode, a #reference) the tape tools work on the session @tape used last.
      tape: () => {
        const ws = tape.opened;
        const sessionId = ws && deps.sessions.current(ws.store);
        return ws && sessionId !== undefined ? tape.tapeOf(ws).session(sessionId).tapePort() : undefined;
      },
      log,
    }),
  );
  return {
    workspaceTapeFile: async () => (await tape.open()).file,
    closeWorkspaceTape: () => tape.close(),
    workspaceStore: async () => (await tape.open()).store,
    sessionsTree: inspector.tree,
    inspectorRequest: (sessionId, method, params) => inspector.panels.request(sessionId, method, params),
  };
}

/** The transcripts this window followed or imported, with where each was read to. */
const agentTranscripts = new FollowedTranscripts();

/** Another agent's transcript onto the workspace tape: only what it gained since the last time is read. */
const ingestAgentTranscript: IngestFile = async (store, file) => {
  const { sessions, appended } = await agentTranscripts.ingest(store, file);
  return { sessions, appended };
};

/** Closing the tape checkpoints it and releases the lock, so another window can take it over. */
export async function deactivate(): Promise<void> {
  await workspaceTape?.dispose();
}
