import * as vscode from 'vscode';
import { agentLabel } from '../agentLabel';
import { plain } from '../search/searchPick';
import { blameActions, type BlameAction } from './blameActions';
import { shortPrompt } from './blameHover';
import { blameTurns, type BlameTurn } from './blameTurns';
import { MAX_LINES, type DocumentBlame } from './documentBlames';
import { timeAgo } from './timeAgo';

/** A turn as Blame File lists it (and returns it, for scripts and tests). */
export interface ListedTurn {
  sessionId: string;
  entryId: number;
  agent: string;
  turn: number | null;
  lines: number;
  startLine: number;
  endLine: number;
}

/** What Blame File did: the turns listed, the one picked and the action run on it. */
export interface BlameFileResult {
  turns: ListedTurn[];
  picked?: ListedTurn;
  action?: string;
}

interface TurnItem extends vscode.QuickPickItem {
  turn: BlameTurn;
}

const listed = (t: BlameTurn): ListedTurn => ({
  sessionId: t.origin.sessionId,
  entryId: t.origin.entryId,
  agent: t.origin.agent,
  turn: t.origin.turn,
  lines: t.lines,
  startLine: t.first.startLine,
  endLine: t.first.endLine,
});

/** An item's words are the tape's: `$(…)` in them stays text (`plain`), and QuickPick items are not Markdown. */
function itemOf(t: BlameTurn, now: number): TurnItem {
  const o = t.origin;
  const detail = [`${t.lines} line${t.lines === 1 ? '' : 's'} from line ${t.first.startLine}`, timeAgo(o.at, now)];
  if (o.prompt !== null && o.prompt.trim() !== '') detail.push(shortPrompt(o.prompt, 120));
  return {
    label: `${plain(agentLabel(o.agent))}${o.turn === null ? '' : ` · turn ${o.turn}`}`,
    description: plain(o.sessionTitle ?? o.sessionId),
    detail: plain(detail.join(' · ')),
    turn: t,
  };
}

/**
 * **Tape: Blame File**: the turns that wrote lines of the editor's file, one item each (agent and
 * turn; session title; lines, when, prompt), in file order. The one chosen has its first lines
 * revealed and selected, then a second pick offers its actions (the hover's).
 */
export async function blameFile(
  editor: vscode.TextEditor,
  relPath: string,
  blame: DocumentBlame | undefined,
  log: vscode.LogOutputChannel,
): Promise<BlameFileResult> {
  if (blame === undefined) {
    void vscode.window.showWarningMessage(
      `Agent Tape: ${relPath} was not blamed (a file over ${MAX_LINES.toLocaleString('en-US')} lines is not; any other reason is in the Agent Tape log).`,
    );
    return { turns: [] };
  }
  const turns = blameTurns(blame.ranges);
  const shown = `Blame File: ${turns.length} turn${turns.length === 1 ? '' : 's'} wrote lines of ${relPath}`;
  if (turns.length === 0) {
    log.info(shown);
    void vscode.window.showInformationMessage(`Agent Tape: no agent on the workspace tape wrote any line of ${relPath} as it is now.`);
    return { turns: [] };
  }
  const now = Date.now();
  const picking = vscode.window.showQuickPick(
    turns.map((t) => itemOf(t, now)),
    {
      title: `Blame File: ${relPath}`,
      placeHolder: 'The turns that wrote lines of this file; pick one to go to its lines',
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  // Logged once the pick is on its way: a script (or a test) reading the log may answer it then.
  log.info(shown);
  const item = await picking;
  const result: BlameFileResult = { turns: turns.map(listed) };
  if (item === undefined) return result;
  const picked = listed(item.turn);
  result.picked = picked;
  const range = new vscode.Range(picked.startLine - 1, 0, picked.endLine - 1, editor.document.lineAt(picked.endLine - 1).range.end.character);
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, selection: range });

  const actions = blameActions(item.turn.origin, blame.actions);
  const choosing = vscode.window.showQuickPick(
    actions.map((a) => ({ label: a.title, action: a })),
    { title: `Blame File: lines ${picked.startLine}-${picked.endLine} of ${relPath}`, placeHolder: 'What to do with the turn that wrote them' },
  );
  log.info(`Blame File: lines ${picked.startLine}-${picked.endLine} of ${relPath}, by ${picked.sessionId} entry ${picked.entryId}`);
  const action = await choosing;
  if (action === undefined) return result;
  result.action = action.label;
  await run(action.action);
  return result;
}

const run = (a: BlameAction): Thenable<unknown> => vscode.commands.executeCommand(a.command, ...a.args);
