import * as vscode from 'vscode';
import type { Deps } from '../deps';
import { INSPECTOR_PANEL } from './inspectorPanel';
import { registerSessionActions } from './sessionActions';
import { SESSIONS_VIEW } from './sessionsView';
import { TAPE_EDITOR, TapeEditorProvider } from './tapeEditorProvider';

/**
 * The Tape Inspector's parts in VS Code: panels on the workspace tape (restored after a reload),
 * the custom editor of tape files, the "Tape Sessions" view and their commands.
 */
export function registerInspector(deps: Pick<Deps, 'context' | 'log' | 'tape' | 'panels' | 'tree'>): vscode.Disposable {
  const { panels, tree } = deps;
  const view = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: tree, showCollapseAll: false });
  tree.view = view;
  return vscode.Disposable.from(
    panels,
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_PANEL, panels),
    // One editor per file: a split shows the same document, and each editor hosts its own controller.
    vscode.window.registerCustomEditorProvider(TAPE_EDITOR, new TapeEditorProvider(deps), { supportsMultipleEditorsPerDocument: true }),
    view,
    tree,
    registerSessionActions(deps),
  );
}
