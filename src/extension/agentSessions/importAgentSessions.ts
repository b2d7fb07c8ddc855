import * as path from 'path';
import * as vscode from 'vscode';
import { AGENT_LABELS } from '../../ingest/agents';
import { sourceFormatOf } from '../../ingest/detect';
import type { FormatName } from '../../ingest/format';
import type { IngestReport } from '../../ingest/ingest';
import { noSessionIn } from '../../ingest/lookedFor';
import { discoverSessions, type DiscoveredSession } from '../../ingest/sessionDiscovery';
import { loadSqlJs } from '../../store/sqljs';
import { errorMessage } from '../../tape/errorMessage';
import type { Deps } from '../deps';
import { agentTranscripts } from './agentTranscripts';
import { discoveryPlacesOf } from './discoveryPlaces';

/**
 * "Tape: Import Agent Sessions…": every agent's sessions of this workspace, grouped by agent, each
 * group newest first, with their first prompt, and "Choose a File…" for files from anywhere
 * (OpenTelemetry spans, a transcript copied elsewhere); the chosen ones are ingested into the workspace tape
 * (again later, only what they gained is appended) and the first opens in the inspector. A source
 * that cannot be read, or that holds no session, is reported by name and the others are still
 * imported; Cancel stops after the source being read.
 */
export function registerImportAgentSessions(deps: Pick<Deps, 'context' | 'log' | 'tape'>): vscode.Disposable {
  return vscode.commands.registerCommand('agentTape.importAgentSessions', async (files?: string[]) => {
    try {
      const places = discoveryPlacesOf(deps.context);
      if (places === undefined) throw new Error('open a folder first: the sessions listed are those of its path');
      // Databases (opencode's) are listed by reading them with sql.js, which discovery cannot await.
      if (files === undefined) await loadSqlJs();
      const chosen = files ?? (await pick(discoverSessions(places), places.workspace));
      if (chosen === undefined || chosen.length === 0) return undefined;
      const ws = await deps.tape.open();
      if (ws.state.mode === 'readOnly') throw new Error(`the tape is read-only in this window (${ws.state.reason})`);
      const outcomes = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Importing agent sessions', cancellable: true },
        async (progress, token) => {
          const done: IngestReport[] = [];
          const failed: { file: string; reason: string }[] = [];
          for (const file of chosen) {
            if (token.isCancellationRequested) break;
            progress.report({ message: path.basename(file), increment: 100 / chosen.length });
            try {
              // Told by content as the CLI tells a named file: a chosen *.jsonl may be spans (a
              // collector's file exporter), not a line transcript.
              done.push(await agentTranscripts.ingest(ws.store, file, sourceFormatOf(file)?.name));
            } catch (e) {
              deps.log.warn(`Import Agent Sessions: ${errorMessage(e)}`);
              failed.push({ file, reason: errorMessage(e) });
            }
          }
          return { done, failed, cancelled: token.isCancellationRequested };
        },
      );
      const sessions = outcomes.done.flatMap((o) => o.sessions);
      const appended = outcomes.done.reduce((n, o) => n + o.appended, 0);
      deps.log.info(`imported ${outcomes.done.length} agent source(s): ${sessions.length} session(s), ${appended} new entries`);
      const imported = `imported ${sessions.length} session${sessions.length === 1 ? '' : 's'} (${appended} new entries)${outcomes.cancelled ? ', then cancelled' : ''}`;
      // A chosen file can be valid and hold no session (spans of other instrumentation): say why.
      const sessionless = outcomes.done.flatMap((o) => {
        const why = noSessionIn(o);
        return why === undefined ? [] : [{ file: o.file, why }];
      });
      for (const s of sessionless) deps.log.warn(`Import Agent Sessions: ${s.why}`);
      const problems = [
        ...(outcomes.failed.length > 0 ? [`${outcomes.failed.length} could not be read: ${outcomes.failed.map((f) => f.reason).join('; ')}`] : []),
        ...sessionless.map((s) => s.why),
      ];
      if (problems.length > 0) void vscode.window.showWarningMessage(`Agent Tape: ${imported}; ${problems.join('; ')}`);
      else void vscode.window.showInformationMessage(`Agent Tape: ${imported}.`);
      if (sessions[0] !== undefined) await vscode.commands.executeCommand('agentTape.openInspector', sessions[0]);
      return { sessions, appended, failed: outcomes.failed.map((f) => f.file), sessionless: sessionless.map((s) => s.file) };
    } catch (e) {
      deps.log.error(`Import Agent Sessions failed: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`Agent Tape: ${errorMessage(e)}`);
      return undefined;
    }
  });
}

/** Files from anywhere: OTLP/JSON spans (no agent keeps them in a place discovery knows) or a transcript copied elsewhere. */
async function chooseFiles(): Promise<string[] | undefined> {
  const uris = await vscode.window.showOpenDialog({
    canSelectMany: true,
    openLabel: 'Import',
    title: 'Import OpenTelemetry spans or an agent transcript',
    filters: { 'Spans and transcripts': ['json', 'jsonl'], 'All files': ['*'] },
  });
  return uris?.map((u) => u.fsPath);
}

const CHOOSE_FILE = 'Choose a File…';

async function pick(found: DiscoveredSession[], workspace: string): Promise<string[] | undefined> {
  if (found.length === 0) {
    const agents = [...new Set(Object.values(AGENT_LABELS))].join(', ');
    const choice = await vscode.window.showInformationMessage(`Agent Tape: no sessions of ${agents} found for ${workspace}.`, CHOOSE_FILE);
    return choice === CHOOSE_FILE ? chooseFiles() : undefined;
  }
  // Grouped by agent, the group with the newest session first; each group newest first (found is).
  const groups = new Map<FormatName, DiscoveredSession[]>();
  for (const s of found) groups.set(s.format, [...(groups.get(s.format) ?? []), s]);
  const items: (vscode.QuickPickItem & { file?: string; choose?: true })[] = [
    {
      label: `$(file) ${CHOOSE_FILE}`,
      description: "OpenTelemetry spans (OTLP/JSON: Copilot's Agent Debug export, a collector's file exporter) or a transcript from elsewhere",
      alwaysShow: true,
      choose: true,
    },
    ...[...groups].flatMap(([format, sessions]) => [
      { label: AGENT_LABELS[format], kind: vscode.QuickPickItemKind.Separator },
      ...sessions.map((s) => ({
        label: s.firstPrompt ?? '(no prompt yet)',
        description: `${AGENT_LABELS[s.format]} · ${new Date(s.modifiedAt).toLocaleString()}`,
        detail: s.file,
        file: s.file,
      })),
    ]),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: 'Tape: Import Agent Sessions',
    placeHolder: 'Sessions of this workspace, newest first',
    matchOnDetail: true,
  });
  if (picked === undefined) return undefined;
  const files = picked.flatMap((p) => p.file ?? []);
  if (!picked.some((p) => p.choose === true)) return files;
  const chosen = await chooseFiles();
  return chosen === undefined ? undefined : [...files, ...chosen];
}
