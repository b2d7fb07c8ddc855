import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { discoverSessions, type DiscoveredSession } from '../../ingest/sessionDiscovery';
import type { WorkspaceStore } from '../../store/workspaceStore';
import { errorMessage } from '../../tape/errorMessage';
import type { WorkspaceTape } from '../workspaceTape';

/** What an ingest of one transcript file into the workspace tape reports. */
export interface IngestOutcome {
  /** The tape sessions the file maps to (a Claude Code session and its subagents). */
  sessions: string[];
  appended: number;
}

export type IngestFile = (store: WorkspaceStore['store'], file: string) => Promise<IngestOutcome>;

interface Deps {
  log: vscode.LogOutputChannel;
  tape: WorkspaceTape;
  ingest: IngestFile;
}

const FORMAT_LABEL: Record<DiscoveredSession['format'], string> = { 'claude-code': 'Claude Code', codex: 'Codex' };

/**
 * "Tape: Import Agent Sessions…": this workspace's Claude Code and Codex sessions, newest first
 * with their first prompt; the chosen ones are ingested into the workspace tape (again later, only
 * what they gained is appended) and the first opens in the inspector.
 */
export function registerImportAgentSessions(deps: Deps): vscode.Disposable {
  return vscode.commands.registerCommand('agentTape.importAgentSessions', async (files?: string[]) => {
    try {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (folder === undefined || folder.scheme !== 'file') throw new Error('open a folder first: the sessions listed are those of its path');
      const chosen = files ?? (await pick(discoverSessions(folder.fsPath, os.homedir()), folder.fsPath));
      if (chosen === undefined || chosen.length === 0) return undefined;
      const ws = await deps.tape.open();
      if (ws.state.mode === 'readOnly') throw new Error(`the tape is read-only in this window (${ws.state.reason})`);
      const outcomes = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Importing agent sessions', cancellable: false },
        async (progress) => {
          const done: IngestOutcome[] = [];
          for (const file of chosen) {
            progress.report({ message: path.basename(file), increment: 100 / chosen.length });
            done.push(await deps.ingest(ws.store, file));
          }
          return done;
        },
      );
      const sessions = outcomes.flatMap((o) => o.sessions);
      const appended = outcomes.reduce((n, o) => n + o.appended, 0);
      deps.log.info(`imported ${chosen.length} agent transcript(s): ${sessions.length} session(s), ${appended} new entries`);
      void vscode.window.showInformationMessage(
        `Agent Tape: imported ${sessions.length} session${sessions.length === 1 ? '' : 's'} (${appended} new entries).`,
      );
      if (sessions[0] !== undefined) await vscode.commands.executeCommand('agentTape.openInspector', sessions[0]);
      return { sessions, appended };
    } catch (e) {
      deps.log.error(`Import Agent Sessions failed: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`Agent Tape: ${errorMessage(e)}`);
      return undefined;
    }
  });
}

async function pick(found: DiscoveredSession[], workspace: string): Promise<string[] | undefined> {
  if (found.length === 0) {
    void vscode.window.showInformationMessage(`Agent Tape: no Claude Code or Codex sessions found for ${workspace}.`);
    return undefined;
  }
  const items = found.map((s) => ({
    label: s.firstPrompt ?? '(no prompt yet)',
    description: `${FORMAT_LABEL[s.format]} · ${new Date(s.modifiedAt).toLocaleString()}`,
    detail: s.file,
    file: s.file,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: 'Tape: Import Agent Sessions',
    placeHolder: 'Sessions of this workspace, newest first',
    matchOnDetail: true,
  });
  return picked?.map((p) => p.file);
}
