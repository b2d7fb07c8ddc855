import * as vscode from 'vscode';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';
import { blameFile, type BlameFileResult } from './blameFilePick';
import { DocumentBlames } from './documentBlames';
import { LiveBlame } from './liveBlame';

/** Whether agent blame is on, per workspace. */
const ON_KEY = 'agentTape.blame.on';

/**
 * Agent blame in the editor: **Tape: Toggle Agent Blame** (and its status bar item, which says
 * whether it is on and, when on, how many lines of the active file agents wrote) and **Tape: Blame
 * File**. While off only the two commands and the status bar item exist; on, a `LiveBlame` adds the
 * hover, the marks and what they listen to. The state is kept per workspace and restored when the
 * extension activates (it activates lazily, on its first command or chat).
 */
export function registerBlame(deps: Pick<Deps, 'context' | 'log' | 'tape'>): vscode.Disposable {
  const { context, log, tape } = deps;
  const run = reportingCommands(log);
  const blames = new DocumentBlames(tape);
  const status = vscode.window.createStatusBarItem('agentTape.blame', vscode.StatusBarAlignment.Right, 99);
  status.name = 'Agent Blame';
  status.command = 'agentTape.toggleBlame';
  let live: LiveBlame | undefined;

  const showStatus = (lines?: number): void => {
    const on = live !== undefined;
    status.text = !on
      ? '$(hubot) Blame off'
      : lines === undefined
        ? '$(hubot) Blame on'
        : `$(hubot) ${lines.toLocaleString('en-US')} agent line${lines === 1 ? '' : 's'}`;
    const state = !on
      ? 'Agent blame is off.'
      : lines === undefined
        ? 'Agent blame is on.'
        : `Agent blame is on: agents wrote ${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'} of this file.`;
    status.tooltip = `${state} Click to turn it ${on ? 'off' : 'on'}.`;
    status.accessibilityInformation = { label: state };
    status.show();
  };

  const turn = (on: boolean): void => {
    live?.dispose();
    live = on ? new LiveBlame(blames, tape, log, showStatus) : undefined;
    showStatus();
  };
  turn(context.workspaceState.get<boolean>(ON_KEY) === true);

  return vscode.Disposable.from(
    status,
    { dispose: () => live?.dispose() },
    run('agentTape.toggleBlame', async () => {
      const on = live === undefined;
      turn(on);
      await context.workspaceState.update(ON_KEY, on);
      log.info(`agent blame ${on ? 'on' : 'off'}`);
      return on;
    }),
    run('agentTape.blameFile', async (): Promise<BlameFileResult | undefined> => {
      const editor = vscode.window.activeTextEditor;
      const relPath = editor === undefined ? undefined : blames.relPathOf(editor.document);
      if (editor === undefined || relPath === undefined) {
        void vscode.window.showInformationMessage('Agent Tape: open a file of the workspace folder to blame it.');
        return undefined;
      }
      // While blame is on its blame of the document is kept; off, it is made for this once.
      const blame = await (live?.of(editor.document) ?? blames.blame(editor.document));
      return blameFile(editor, relPath, blame, log);
    }),
  );
}
