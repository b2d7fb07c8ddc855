import * as vscode from 'vscode';
import { inspectorCommandArgs, type CommandSource } from './inspectorCommandArgs';

/** Runs a command the page asked for, if it is one it may run (./inspectorCommandArgs.ts). */
export async function runInspectorCommand(name: string, args: readonly (string | number)[], where: CommandSource = {}): Promise<void> {
  const commandArgs = inspectorCommandArgs(name, args, where);
  await vscode.commands.executeCommand(name, ...commandArgs);
}
