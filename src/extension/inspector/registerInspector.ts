import * as vscode from 'vscode';
import type { ActiveSession } from '../activeSession';
import type { WorkspaceTape } from '../workspaceTape';
import { INSPECTOR_PANEL, InspectorPanels } from './inspectorPanel';
import { registerSessionActions } from './sessionActions';
import { registerSessionsView, type SessionsTree } from './sessionsView';
import { TAPE_EDITOR, TapeEditorProvider } from './tapeEditorProvider';

interface Deps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  tape: WorkspaceTape;
  sessions: ActiveSession;
}

/**
 * The Tape Inspector's parts in VS Code: panels on the workspace tape (restored after a reload),
 * the custom editor of tape files, the "Tape Sessions" view and their commands.
 */
export function registerInspector(deps: Deps): { tree: SessionsTree; panels: InspectorPanels; disposables: vscode.Disposable[] } {
  const panels = new InspectorPanels(deps);
  const { tree, disposables } = registerSessionsView(deps.tape, deps.log);
  return {
    tree,
    panels,
    disposables: [
      panels,
      vscode.window.registerWebviewPanelSerializer(INSPECTOR_PANEL, panels),
      // One editor per file: a split shows the same document, and each editor hosts its own controller.
      vscode.window.registerCustomEditorProvider(TAPE_EDITOR, new TapeEditorProvider(deps), { supportsMultipleEditorsPerDocument: true }),
      ...disposables,
      ...registerSessionActions({ ...deps, panels, tree }),
    ],
  };
}
