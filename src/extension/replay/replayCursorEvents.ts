import * as vscode from 'vscode';

/** Where a replay's cursor is: an inspector open on the same tape and session follows it. */
export interface ReplayCursorMoved {
  /** The tape file the replay reads (the workspace tape's file when it replays the workspace tape). */
  tapeFile: string;
  sessionId: string;
  /** The entry at the cursor (a position of the session's view); null when the replay ended. */
  entryId: number | null;
}

/** The debug session fires it on every stop; the inspector panels and the tape editor listen. */
export const replayCursor = new vscode.EventEmitter<ReplayCursorMoved>();
