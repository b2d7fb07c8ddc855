import * as os from 'os';
import * as vscode from 'vscode';
import { backfillSession } from '../../agent/backfill';
import type { SessionHandle, TurnSetup } from '../../agent/session/sessionHandle';
import { readAgentsMd } from '../../agent/context/agentsMd';
import type { FailureClass } from '../../agent/model/providerError';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { errorMessage } from '../../tape/errorMessage';
import { LmModelPort } from '../model/lmModelPort';
import { readAgentSettings } from '../settings';
import { abortSignalOf } from '../cancellation';
import type { Deps } from '../deps';
import { ChatToolbox } from '../tools/chatToolbox';
import { codeSpan } from '../tools/markdownCode';
import { VsCodeWorkspace } from '../tools/vscodeWorkspace';
import { ChatRenderer, compactionNotice, notice } from './chatRenderer';
import { inspectSummary } from './inspectSummary';
import { userMessageOf } from './userMessage';
import { historyTurnsOf, newChatSessionId, sessionOfHistory, tapeChatMetadata, type TapeChatMetadata } from './threadSession';

export const PARTICIPANT_ID = 'agent-tape.tape';

/** Failures the user fixes in the model set-up, not by asking again. */
const SET_UP_FAILURES: ReadonlySet<FailureClass> = new Set(['auth', 'model_missing', 'unreachable', 'key_withheld']);

interface TapeChatResult extends vscode.ChatResult {
  metadata: TapeChatMetadata;
}

/** The `@tape` chat participant: each chat thread is one session on the workspace tape. */
export function registerParticipant(deps: Pick<Deps, 'context' | 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => handle(deps, request, context, stream, token));
  participant.iconPath = vscode.Uri.joinPath(deps.context.extensionUri, 'media', 'icon.png');
  participant.followupProvider = { provideFollowups: followupsOf };
  return participant;
}

async function handle(
  deps: Pick<Deps, 'log' | 'tape' | 'sessions'>,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<TapeChatResult> {
  const { log } = deps;
  if (request.command === 'new') {
    const sessionId = newChatSessionId();
    stream.markdown(
      `Started a new tape session (${codeSpan(sessionId)}). The next request starts from an empty context; the earlier session stays on the tape.`,
    );
    return { metadata: { sessionId } };
  }
  const sessionId = sessionOfHistory(context.history) ?? newChatSessionId();
  const metadata: TapeChatMetadata = { sessionId };
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (root === undefined || root.scheme !== 'file') {
    stream.markdown('`@tape` works on a folder on this machine: open one, then ask again.');
    stream.button({ command: 'vscode.openFolder', title: 'Open Folder…' });
    return { metadata, errorDetails: { message: 'No workspace folder is open.' } };
  }
  let ws: WorkspaceStore;
  try {
    ws = await deps.tape.open();
  } catch (e) {
    return { metadata, errorDetails: { message: `The workspace tape could not be opened: ${codeSpan(errorMessage(e))}` } };
  }
  const session = deps.tape.tapeOf(ws).session(sessionId);
  if (request.command === 'inspect') {
    stream.markdown(inspectSummary(session));
    if (session.head() > 0) {
      // The summary stays the reply (it is what the chat history keeps); the inspector shows the rest.
      await vscode.commands.executeCommand('agentTape.openInspector', sessionId);
      stream.button({ command: 'agentTape.openInspector', arguments: [sessionId], title: 'Open Inspector' });
    }
    return { metadata };
  }
  if (ws.state.mode === 'readOnly') {
    stream.markdown(
      `This window's tape is **read-only**: another window on this workspace (process ${ws.state.holderPid}) is writing it. Nothing was sent or written. Ask in that window, or close it: this one then takes the tape over.`,
    );
    return { metadata, errorDetails: { message: 'The workspace tape is read-only in this window.' } };
  }
  deps.sessions.used(sessionId, request.model);
  const rebuilt = await backfillSession(session.store, sessionId, historyTurnsOf(context.history, sessionId), 'vscode-chat-history');
  if (rebuilt > 0) {
    log.info(`session ${sessionId} was not on the tape; rebuilt ${rebuilt} exchanges from the chat history`);
    notice(
      stream,
      'history',
      `This chat's session was not on the tape (storage cleared, or another machine); rebuilt ${rebuilt} exchange${rebuilt === 1 ? '' : 's'} from the chat history.`,
    );
  }

  const abort = abortSignalOf(token);
  try {
    if (request.command === 'handoff') return await handoff(session, request.prompt, stream, metadata);
    if (request.command === 'fork') return await forkThread(deps, session, request.model, stream);
    const model = new LmModelPort(request.model);
    if (request.command === 'compact') {
      stream.progress('Summarising the session…');
      const outcome = await session.compact(model, abort.signal);
      if ('error' in outcome) return { metadata, errorDetails: { message: `Compaction failed: ${codeSpan(outcome.error)}` } };
      compactionNotice(stream, sessionId, { anchorName: outcome.anchor.name, anchorEntryId: outcome.anchor.entryId, totals: outcome.audit.totals });
      return { metadata };
    }
    return await runTurn(deps, { request, ws, session, root, model, stream, signal: abort.signal });
  } catch (e) {
    log.error(`@tape request in ${sessionId} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return { metadata, errorDetails: { message: codeSpan(errorMessage(e)) } };
  } finally {
    abort.dispose();
  }
}

interface TurnRequest {
  request: vscode.ChatRequest;
  ws: WorkspaceStore;
  session: SessionHandle;
  root: vscode.Uri;
  model: LmModelPort;
  stream: vscode.ChatResponseStream;
  signal: AbortSignal;
}

async function runTurn(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>, t: TurnRequest): Promise<TapeChatResult> {
  const settings = readAgentSettings(deps.log);
  const workspace = new VsCodeWorkspace(t.root, { commandEnv: { pass: settings.commandEnvAllowlist } });
  const tools = new ChatToolbox({
    toolInvocationToken: t.request.toolInvocationToken,
    extraTools: settings.extraTools,
    isTrusted: vscode.workspace.isTrusted,
    log: deps.log,
  });
  // Only where edits and commands are offered at all (a trusted workspace); the read-only window never gets here.
  const checkpoints = settings.checkpoints && vscode.workspace.isTrusted ? deps.tape.checkpointsOf(t.ws, t.root.fsPath) : undefined;
  const setup: TurnSetup = {
    checkpoints,
    model: t.model,
    workspace,
    // Edits and commands are confirmed in the chat by the toolbox (VS Code's own confirmation).
    permissions: { edits: false, commands: false },
    tools,
    environment: {
      os: `${os.type()} ${os.release()}`,
      shell: vscode.env.shell || (process.platform === 'win32' ? 'cmd.exe' : '/bin/sh'),
      workspaceRoot: t.root.fsPath,
      date: new Date().toISOString().slice(0, 10),
    },
    // On disk, as the workspace's tools are (VsCodeWorkspace refused any other scheme above).
    agentsMd: await readAgentsMd(t.root.fsPath),
    maxRounds: settings.maxRounds,
    subagentMaxRounds: settings.subagentMaxRounds,
    compactionShare: settings.autoCompactShare,
  };
  const renderer = new ChatRenderer(t.stream, { root: t.root, sessionId: t.session.sessionId, shownByEditor: (name) => tools.shownByEditor(name) });
  const outcome = await t.session.runTurn(await userMessageOf(t.request, t.root), setup, { signal: t.signal, onEvent: renderer.onEvent });
  const metadata: TapeChatMetadata = { sessionId: t.session.sessionId, outcome: outcome.outcome };
  switch (outcome.outcome) {
    case 'answer':
      return { metadata };
    case 'cancelled':
      notice(t.stream, 'debug-stop', 'Cancelled. What was streamed is on the tape, marked as interrupted.');
      return { metadata };
    case 'round_limit':
      notice(
        t.stream,
        'warning',
        `Stopped after ${outcome.rounds} model requests (the \`agentTape.maxRounds\` setting) while the model was still calling tools.`,
      );
      return { metadata };
    case 'provider_error': {
      const error = outcome.error;
      if (error && SET_UP_FAILURES.has(error.failureClass)) {
        t.stream.markdown(
          `\n\nThe model ${codeSpan(t.request.model.name)} cannot be used as it is set up. Pick another model in the chat's model picker, or set up Agent Tape's own OpenAI-compatible provider (base URL, models and API key).`,
        );
        t.stream.button({ command: 'agentTape.manageModels', title: 'Set Up a Model…' });
      }
      // VS Code renders the message as Markdown, and its detail is the server's own words.
      return { metadata, errorDetails: { message: error ? codeSpan(error.message) : 'The model request failed.' } };
    }
  }
}

async function handoff(session: SessionHandle, prompt: string, stream: vscode.ChatResponseStream, metadata: TapeChatMetadata): Promise<TapeChatResult> {
  const [, name = '', notes = ''] = /^\s*(\S*)\s*([\s\S]*)$/.exec(prompt) ?? [];
  if (name === '') return { metadata, errorDetails: { message: 'Usage: /handoff <name> [notes], e.g. /handoff phase-2 the parser is done; next, the CLI' } };
  // The notes are the checkpoint the next request starts from: without any, say that much.
  const anchor = await session.handoff(name, notes.trim() || `Handoff "${name}" (the user left no notes).`);
  notice(
    stream,
    'milestone',
    `Handoff ${codeSpan(anchor.name)} (entry #${anchor.entryId}): the next request starts from its notes, without the history before it.`,
  );
  return { metadata };
}

/**
 * `/fork`: the thread's session forks at its head and the thread goes on in the fork: its id is the
 * session this answer leaves in the metadata, which the next request of the thread reads.
 */
async function forkThread(
  deps: Pick<Deps, 'log' | 'tape' | 'sessions'>,
  session: SessionHandle,
  model: vscode.LanguageModelChat,
  stream: vscode.ChatResponseStream,
): Promise<TapeChatResult> {
  const { sessionId } = session;
  if (session.head() === 0)
    return { metadata: { sessionId }, errorDetails: { message: 'There is nothing to fork yet: this chat has no session on the tape. Ask something first.' } };
  const fork = await session.fork();
  deps.sessions.used(fork.forkSessionId, model);
  notice(
    stream,
    'repo-forked',
    `Forked this session at entry #${fork.parentHeadEntryId} as fork ${codeSpan(fork.forkId)} (session ${codeSpan(fork.forkSessionId)}). This chat now continues in the fork: the next request reads the session up to the fork point, then the fork's own entries. The original session stays as it was; merge the fork into it or discard it when you are done.`,
  );
  stream.button({ command: 'agentTape.mergeFork', arguments: [fork.forkSessionId], title: 'Merge Fork' });
  stream.button({ command: 'agentTape.discardFork', arguments: [fork.forkSessionId], title: 'Discard Fork…' });
  // The files stay as they are unless asked: a restore into the fork is recorded on the fork.
  if (session.workspaceStateAt(fork.parentHeadEntryId) !== null)
    stream.button({ command: 'agentTape.restoreFiles', arguments: [fork.forkSessionId, fork.parentHeadEntryId], title: 'Restore Files to the Fork Point' });
  return { metadata: { sessionId: fork.forkSessionId } };
}

function followupsOf(result: vscode.ChatResult): vscode.ChatFollowup[] {
  const metadata = tapeChatMetadata.safeParse(result.metadata).data;
  if (metadata === undefined) return [];
  const followups: vscode.ChatFollowup[] = [];
  if (metadata.outcome === 'round_limit') followups.push({ prompt: 'Go on from where you stopped.', label: 'Continue' });
  if (metadata.outcome !== undefined) followups.push({ prompt: '', command: 'inspect', label: "Inspect this session's tape" });
  return followups;
}
