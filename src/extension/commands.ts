import * as vscode from 'vscode';
import { sqliteVersion } from '../store/sqljs';
import { errorMessage } from '../tape/errorMessage';
import { showAboutPanel } from './aboutPanel';
import type { Deps } from './deps';

export interface VersionInfo {
  extension: string;
  sqlite: string;
}

/** "Tape: Show Version" and "About Agent Tape". */
export function registerCommands(deps: Pick<Deps, 'context' | 'log'>): vscode.Disposable {
  const { context, log } = deps;
  return vscode.Disposable.from(
    vscode.commands.registerCommand('agentTape.showVersion', async (): Promise<VersionInfo | undefined> => {
      try {
        const info = { extension: context.extension.packageJSON.version as string, sqlite: await sqliteVersion() };
        log.info(`version: Agent Tape ${info.extension}, SQLite ${info.sqlite} (sql.js)`);
        void vscode.window.showInformationMessage(`Agent Tape ${info.extension} · SQLite ${info.sqlite} (sql.js)`);
        return info;
      } catch (e) {
        const message = errorMessage(e);
        log.error(`Show Version failed: ${message}`);
        void vscode.window.showErrorMessage(`Agent Tape: ${message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('agentTape.showAbout', () => showAboutPanel(context, log)),
  );
}
