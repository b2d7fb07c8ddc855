import * as vscode from 'vscode';
import type { Deps } from './deps';

/** The sample the agent core recorded (scripts/make-demo-tapes.mjs); it ships inside the extension. */
export const SAMPLE_TAPE = 'demo/samples/coding-session.tape.sqlite';
/** The sample's coding session: the one with the tool calls, compaction, handoff, forks and subagent. */
export const SAMPLE_SESSION = 'demo-coding';

const OPEN_SAMPLE = 'agentTape.openSampleTape';
const REPLAY_SAMPLE = 'agentTape.replaySampleTape';

/**
 * "Tape: Open the Sample Tape" and "Tape: Replay the Sample Tape", the walkthrough's first two
 * steps: the product shown on a tape without any model. Both work on the extension's own copy,
 * so they need no workspace; the tape editor and the replay open it read-only.
 */
export function registerSampleTape(deps: Pick<Deps, 'context'>): vscode.Disposable {
  const sample = (): vscode.Uri => vscode.Uri.joinPath(deps.context.extensionUri, SAMPLE_TAPE);
  return vscode.Disposable.from(
    vscode.commands.registerCommand(OPEN_SAMPLE, () => vscode.commands.executeCommand('vscode.openWith', sample(), 'agentTape.tapeFile')),
    vscode.commands.registerCommand(REPLAY_SAMPLE, () =>
      vscode.commands.executeCommand('agentTape.replaySession', { sessionId: SAMPLE_SESSION, tapeFile: sample().fsPath }),
    ),
  );
}
