import * as path from 'path';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { SessionHandle } from '../agent/session/sessionHandle';
import { otlpJsonChunks } from '../otel/otlpExport';
import { writeFileDurably } from '../store/fsutil';
import { JSONL_SUFFIX, openTapeFile, SQLITE_SUFFIX } from '../store/tapeFile';
import type { TapeStore } from '../store/tapeStore';
import { errorMessage } from '../tape/errorMessage';
import { handoffName } from '../tape/handoffAnchor';
import { compactionSentence } from './chat/compactionSentence';
import type { Deps } from './deps';
import { PARTICIPANT_ID } from './chat/participant';
import { LmModelPort } from './model/lmModelPort';
import { readOtlpCacheTokens } from './settings';

const REVIEW = 'Review';

/** What a session command acts on; undefined (after telling the user why) when there is nothing. */
interface Target {
  session: SessionHandle;
  writable: boolean;
}

/**
 * The Command Palette's way to the operations `@tape` has as slash commands, on the session `@tape`
 * used last in this window (else the chat session the tape heard from last), or on the session id
 * given as their last argument (the sessions view, the inspector). Each returns what it did, so
 * scripts and tests can use them.
 */
export function registerSessionCommands(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const { log } = deps;
  const run = reportingCommands(log);

  const target = async (needsWrite: boolean, given?: unknown): Promise<Target | undefined> => {
    const ws = await deps.tape.open();
    const sessionId = sessionIdArg.parse(given) ?? deps.sessions.current(ws.store);
    if (sessionId === undefined) {
      void vscode.window.showInformationMessage("Agent Tape: there is no chat session on this workspace's tape yet. Ask @tape something first.");
      return undefined;
    }
    const writable = ws.state.mode === 'writable';
    if (needsWrite && ws.state.mode === 'readOnly') {
      void vscode.window.showWarningMessage(`Agent Tape: the tape is read-only in this window (${ws.state.reason}).`);
      return undefined;
    }
    const session = deps.tape.tapeOf(ws).session(sessionId);
    if (session.head() === 0) throw new Error(`the tape has no session ${JSON.stringify(sessionId)}`);
    return { session, writable };
  };

  /** A session as OpenTelemetry spans in an OTLP/JSON file the user picks (or `destination`). */
  const exportOtlp = async (store: TapeStore, tapeFile: string, sessionId: string, destination: vscode.Uri | undefined) => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri =
      destination ??
      (await vscode.window.showSaveDialog({
        title: 'Tape: Export Session as OpenTelemetry',
        saveLabel: 'Export',
        defaultUri: folder && vscode.Uri.joinPath(folder, `${sessionId.replace(/[^\w.-]+/g, '-')}.otlp.json`),
        filters: { 'OTLP/JSON': ['json'] },
      }));
    if (uri === undefined) return undefined;
    if (uri.scheme !== 'file') throw new Error(`only files on this machine can be written, not ${uri.toString()}`);
    const file = uri.fsPath;
    const cacheWriteName = readOtlpCacheTokens(log);
    // Without content (prompts, answers, tool arguments and results): the CLI's --content asks for it.
    const chunks = otlpJsonChunks(store, { tape: path.basename(tapeFile), sessions: [sessionId], cacheWriteName });
    // The save dialog already asked about replacing an existing file.
    await writeFileDurably(file, chunks, false);
    log.info(`exported ${sessionId} as OpenTelemetry spans to ${file}`);
    void vscode.window.showInformationMessage(`Agent Tape: exported ${sessionId} as OpenTelemetry spans to ${path.basename(file)}.`);
    return { file, sessionId };
  };

  return vscode.Disposable.from(
    run('agentTape.compactSession', async (sessionId?: unknown) => {
      const t = await target(true, sessionId);
      if (!t) return undefined;
      const chat = await pickModel(deps.sessions);
      if (!chat) return undefined;
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Compacting ${t.session.sessionId} with ${chat.name}…`, cancellable: true },
        (_progress, token) => {
          const abort = new AbortController();
          token.onCancellationRequested(() => abort.abort());
          return t.session.compact(new LmModelPort(chat), abort.signal);
        },
      );
      if ('error' in outcome) throw new Error(outcome.error);
      const notice = { anchorName: outcome.anchor.name, anchorEntryId: outcome.anchor.entryId, totals: outcome.audit.totals };
      void vscode.window
        .showInformationMessage(`Agent Tape: ${compactionSentence(notice, (name) => name)}`, REVIEW)
        .then((choice) =>
          choice === REVIEW ? vscode.commands.executeCommand('agentTape.inspector.showAnchor', t.session.sessionId, outcome.anchor.entryId) : undefined,
        );
      return { entryId: outcome.anchor.entryId, name: outcome.anchor.name };
    }),

    run('agentTape.handoff', async (givenName?: string, givenNotes?: string, sessionId?: unknown) => {
      const t = await target(true, sessionId);
      if (!t) return undefined;
      const name =
        givenName ??
        (await vscode.window.showInputBox({
          title: 'Tape: Handoff (1/2)',
          prompt: 'Name of the handoff anchor (handoff/<name>)',
          placeHolder: 'phase-2',
          validateInput: (v) => {
            const error = handoffName.safeParse(v).error;
            return error && z.prettifyError(error);
          },
        }));
      if (name === undefined) return undefined;
      const notes =
        givenNotes ??
        (await vscode.window.showInputBox({
          title: 'Tape: Handoff (2/2)',
          prompt: 'Notes for whoever continues: what was done, what comes next. The next request starts from them.',
          validateInput: (v) => (v.trim() === '' ? 'The notes are the checkpoint the next request starts from; write at least a line.' : undefined),
        }));
      if (notes === undefined) return undefined;
      const anchor = await t.session.handoff(name, notes);
      void vscode.window.showInformationMessage(`Agent Tape: appended ${anchor.name} (entry #${anchor.entryId}); the next request starts from it.`);
      return { entryId: anchor.entryId, name: anchor.name };
    }),

    run('agentTape.newSession', async () => {
      // A chat thread is a session: a new thread with @tape is a new session.
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@${PARTICIPANT_ID.split('.').pop()} `, isPartialQuery: true });
      return true;
    }),

    run('agentTape.exportSession', async (destination?: vscode.Uri, sessionId?: unknown) => {
      const t = await target(false, sessionId);
      if (!t) return undefined;
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const uri =
        destination ??
        (await vscode.window.showSaveDialog({
          title: 'Tape: Export Session',
          saveLabel: 'Export',
          defaultUri: folder && vscode.Uri.joinPath(folder, `${t.session.sessionId}${JSONL_SUFFIX}`),
          filters: { 'Tape (JSON Lines)': ['tape.jsonl'], 'Tape (SQLite)': ['tape.sqlite'] },
        }));
      if (uri === undefined) return undefined;
      if (uri.scheme !== 'file') throw new Error(`only files on this machine can be written, not ${uri.toString()}`);
      const file = uri.fsPath;
      if (!file.endsWith(JSONL_SUFFIX) && !file.endsWith(SQLITE_SUFFIX))
        throw new Error(`a tape file name ends in ${JSONL_SUFFIX} or ${SQLITE_SUFFIX}: ${path.basename(file)}`);
      // The save dialog already asked about replacing an existing file.
      const { entries } = await t.session.export(file, { replace: true });
      log.info(`exported ${entries} entries of ${t.session.sessionId} to ${file}`);
      void vscode.window.showInformationMessage(`Agent Tape: exported ${entries} entries to ${path.basename(file)}.`);
      return { file, entries, sessionId: t.session.sessionId };
    }),

    run('agentTape.exportSessionOtlp', async (destination?: vscode.Uri, sessionId?: unknown, tapeFile?: unknown) => {
      const file = tapeFileArg.parse(tapeFile);
      if (file === undefined) {
        const t = await target(false, sessionId);
        if (!t) return undefined;
        const ws = await deps.tape.open();
        return await exportOtlp(ws.store, ws.file, t.session.sessionId, destination);
      }
      // A tape file's inspector exports a session of that file, which is only read.
      const given = sessionIdArg.parse(sessionId);
      if (given === undefined) throw new Error(`name the session of ${path.basename(file)} to export`);
      const store = await openTapeFile(file, { readOnly: true });
      try {
        if (store.headEntryId(given) === 0) throw new Error(`${path.basename(file)} has no session ${JSON.stringify(given)}`);
        return await exportOtlp(store, file, given, destination);
      } finally {
        await store.close();
      }
    }),
  );
}

/**
 * Registers commands that report their failure (log and an error message) and return undefined,
 * instead of leaving VS Code to show a bare rejection.
 */
export function reportingCommands(log: vscode.LogOutputChannel) {
  return <A extends unknown[], R>(id: string, fn: (...args: A) => Promise<R | undefined>): vscode.Disposable =>
    vscode.commands.registerCommand(id, async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (e) {
        log.error(`${id} failed: ${errorMessage(e)}`);
        void vscode.window.showErrorMessage(`Agent Tape: ${errorMessage(e)}`);
        return undefined;
      }
    });
}

/** A session id given to a command (by the sessions view or the inspector); absent means the current one. */
const sessionIdArg = z.optional(z.string().check(z.minLength(1)));
/** The tape file a tape editor's inspector shows; absent means the workspace tape. */
const tapeFileArg = z.optional(z.string().check(z.minLength(1)));

/** The model a command runs with: the one `@tape` used last, else the user's pick. */
async function pickModel(sessions: Deps['sessions']): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels();
  const last = sessions.model(models);
  if (last) return last;
  if (models.length === 0) {
    const setUp = 'Set Up a Model…';
    if ((await vscode.window.showWarningMessage('Agent Tape: no language model is available to write the summary.', setUp)) === setUp) {
      await vscode.commands.executeCommand('agentTape.setUpModel');
    }
    return undefined;
  }
  if (models.length === 1) return models[0];
  const picked = await vscode.window.showQuickPick(
    models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family}`, model: m })),
    { title: 'Tape: Compact Session', placeHolder: 'Model that writes the summary' },
  );
  return picked?.model;
}
