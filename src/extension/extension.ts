import * as vscode from 'vscode';
import { registerCommands } from './commands';

/**
 * Activation is lazy (command and view events only): nothing here loads sql.js or touches the
 * disk, so an editor that never uses the tape pays nothing for it.
 */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Agent Tape', { log: true });
  context.subscriptions.push(log);
  log.info(`Agent Tape ${context.extension.packageJSON.version as string} activated`);
  registerCommands(context, log);
}

export function deactivate(): void {}
