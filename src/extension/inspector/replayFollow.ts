import * as path from 'path';
import type * as vscode from 'vscode';
import type { InspectorController } from '../../inspector/inspectorController';
import { replayCursor } from '../replay/replayCursorEvents';

/**
 * Makes inspectors follow a replay's cursor: when a replay of the tape file `file()` moves, each
 * controller on that session selects the cursor's entry (a controller on another session ignores it).
 * `file()` is asked each time: the workspace tape may open, close or be taken over meanwhile.
 */
export function followReplayCursor(file: () => string | undefined, controllers: () => Iterable<InspectorController>): vscode.Disposable {
  return replayCursor.event((moved) => {
    const shown = file();
    if (shown === undefined || path.resolve(shown) !== path.resolve(moved.tapeFile)) return;
    for (const c of controllers()) c.cursor(moved.sessionId, moved.entryId);
  });
}
