import * as vscode from 'vscode';
import type { ReplayCursorAt } from './debugSession';

/**
 * Where a replay's cursor is, fired by the debug session on every stop (the workspace tape's file
 * names a replay of the workspace tape): inspector panels and the tape editor on the same tape and
 * session follow it.
 */
export const replayCursor = new vscode.EventEmitter<ReplayCursorAt>();
