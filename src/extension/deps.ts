import type * as vscode from 'vscode';
import type { ActiveSession } from './activeSession';
import type { InspectorPanels } from './inspector/inspectorPanel';
import type { SessionsTree } from './inspector/sessionsView';
import type { WorkspaceTape } from './workspaceTape';

/**
 * What the extension's parts share, made once by `activate`. Every `register*` function takes it
 * (or the `Pick` of it that it uses) and returns one Disposable that undoes all it registered.
 */
export interface Deps {
  readonly context: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  /** The workspace tape, opened on first use. */
  readonly tape: WorkspaceTape;
  /** The session `@tape` works in, per store. */
  readonly sessions: ActiveSession;
  /** The inspector's panels and the "Tape Sessions" view: made before any part registers, since commands of several parts open panels and refresh the view. */
  readonly panels: InspectorPanels;
  readonly tree: SessionsTree;
}
