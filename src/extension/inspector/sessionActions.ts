import * as path from 'path';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { formatOf, importTapeFile } from '../../store/tapeFile';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';

/** A row of the sessions view, as VS Code hands it to a context action. */
const sessionNodeArg = z.looseObject({ sessionId: z.string(), title: z.nullable(z.string()) });
const sessionIdArg = z.optional(z.string());
/** A session and, optionally, the entry (a position of its view) to select in the Entries view. */
const openInspectorArgs = z.union([z.tuple([]), z.tuple([sessionIdArg]), z.tuple([sessionIdArg, z.number().check(z.int(), z.positive())])]);
/** "Review" on a compaction (the chat's notice): the session and its compaction anchor's entry. */
const showAnchorArgs = z.tuple([z.string(), z.number().check(z.int(), z.positive())]);

const DELETE = 'Delete Session';

/**
 * The inspector's commands and the sessions view's actions. The view's context actions take the
 * row they were invoked on and hand its session id to the palette commands (export, compact,
 * handoff act on it exactly as on the current session).
 */
export function registerSessionActions(deps: Pick<Deps, 'log' | 'tape' | 'panels' | 'tree'>): vscode.Disposable {
  const { log, tape, panels, tree } = deps;
  const run = reportingCommands(log);
  const node = (arg: unknown) => sessionNodeArg.parse(arg);

  return vscode.Disposable.from(
    run('agentTape.openInspector', async (...args: unknown[]) => {
      const parsed = openInspectorArgs.safeParse(args);
      if (!parsed.success) throw new Error(`agentTape.openInspector takes a session id and an entry id, both optional: ${z.prettifyError(parsed.error)}`);
      const [sessionId, entryId] = parsed.data;
      if (entryId !== undefined) {
        if (sessionId === undefined) throw new Error('agentTape.openInspector: an entry id needs the session it is in');
        const ws = await tape.open();
        const head = tape.tapeOf(ws).reader.headEntryId(sessionId);
        if (entryId > head) throw new Error(`the session ${JSON.stringify(sessionId)} has no entry ${entryId} (it has ${head})`);
      }
      await panels.show(sessionId, entryId);
      return true;
    }),
    run('agentTape.inspector.showAnchor', async (...args: unknown[]) => {
      const parsed = showAnchorArgs.safeParse(args);
      if (!parsed.success) throw new Error(`agentTape.inspector.showAnchor takes a session id and an anchor's entry id: ${z.prettifyError(parsed.error)}`);
      await panels.showAnchor(...parsed.data);
      return true;
    }),
    run('agentTape.sessions.openInspector', async (row: unknown) => {
      await panels.show(node(row).sessionId);
      return true;
    }),
    run('agentTape.sessions.export', async (row: unknown) =>
      vscode.commands.executeCommand<unknown>('agentTape.exportSession', undefined, node(row).sessionId),
    ),
    run('agentTape.sessions.exportOtlp', async (row: unknown) =>
      vscode.commands.executeCommand<unknown>('agentTape.exportSessionOtlp', undefined, node(row).sessionId),
    ),
    run('agentTape.sessions.compact', async (row: unknown) => vscode.commands.executeCommand<unknown>('agentTape.compactSession', node(row).sessionId)),
    run('agentTape.sessions.handoff', async (row: unknown) =>
      vscode.commands.executeCommand<unknown>('agentTape.handoff', undefined, undefined, node(row).sessionId),
    ),

    run('agentTape.sessions.delete', async (row: unknown) => {
      const { sessionId, title } = node(row);
      const ws = await tape.open();
      if (ws.state.mode === 'readOnly') {
        void vscode.window.showWarningMessage(`Agent Tape: the tape is read-only in this window (${ws.state.reason}).`);
        return undefined;
      }
      const entries = ws.store.sessions().find((s) => s.sessionId === sessionId)?.entryCount ?? 0;
      if (entries === 0) throw new Error(`the tape has no session ${JSON.stringify(sessionId)} any more`);
      const choice = await vscode.window.showWarningMessage(
        `Delete the session "${title ?? 'Untitled session'}" (${sessionId}) and its ${entries.toLocaleString('en-US')} ${entries === 1 ? 'entry' : 'entries'} from this workspace's tape?`,
        {
          modal: true,
          detail:
            "This is Agent Tape's one physical delete, there for privacy and disk space: everything else (compaction, handoffs, retracted turns) only appends. " +
            'The entries go for good, from the search index and the files on disk too. Export the session first to keep a copy.',
        },
        DELETE,
      );
      if (choice !== DELETE) return undefined;
      panels.closeSession(sessionId);
      const deleted = await tape.tapeOf(ws).session(sessionId).delete();
      log.info(`deleted session ${sessionId} (${deleted.entries} entries) from the workspace tape`);
      tree.refresh();
      void vscode.window.showInformationMessage(`Agent Tape: deleted the session "${title ?? sessionId}" (${deleted.entries} entries).`);
      return { sessionId, entries: deleted.entries };
    }),

    run('agentTape.importTapeFile', async (given?: unknown) => {
      const uri =
        given instanceof vscode.Uri
          ? given
          : (
              await vscode.window.showOpenDialog({
                title: 'Tape: Import Tape File',
                openLabel: 'Import',
                canSelectFiles: true,
                canSelectFolders: false,
                canSelectMany: false,
                defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
                filters: { 'Tape files (.tape.jsonl, .tape.sqlite)': ['jsonl', 'sqlite'] },
              })
            )?.[0];
      if (uri === undefined) return undefined;
      if (uri.scheme !== 'file') throw new Error(`only tape files on this machine can be imported, not ${uri.toString()}`);
      const file = uri.fsPath;
      formatOf(file); // refuses a name that is not a tape file's before the tape is opened
      const ws = await tape.open();
      if (ws.state.mode === 'readOnly') {
        void vscode.window.showWarningMessage(`Agent Tape: the tape is read-only in this window (${ws.state.reason}); nothing was imported.`);
        return undefined;
      }
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Importing ${path.basename(file)}…` }, () =>
        importTapeFile(ws.store, file),
      );
      tree.refresh();
      const entries = report.imported.reduce((n, s) => n + s.entries, 0);
      log.info(`imported ${report.imported.length} sessions (${entries} entries) from ${file}; skipped ${report.skipped.length} already on the tape`);
      const skipped = report.skipped.length === 0 ? '' : ` Skipped ${report.skipped.length} already on the tape: ${report.skipped.join(', ')}.`;
      void vscode.window.showInformationMessage(
        `Agent Tape: imported ${report.imported.length} session${report.imported.length === 1 ? '' : 's'} (${entries} entries) from ${path.basename(file)}.${skipped}`,
      );
      return report;
    }),
  );
}
