import * as vscode from 'vscode';
import type { SessionNode, SessionsTree } from '../../src/extension/inspector/sessionsView';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const SHOW = 'workbench.action.output.show.';

/**
 * The text of the "Agent Tape" log channel once it contains `expected`. The workbench registers a
 * "show" command per output channel; showing it makes its text an `output:` document to read.
 */
export async function agentTapeLog(expected: string): Promise<string> {
  const show = await until('the "Agent Tape" output channel', async () =>
    (await vscode.commands.getCommands(true)).find((c) => c === `${SHOW}${EXTENSION_ID}.Agent Tape.log`),
  );
  await vscode.commands.executeCommand(show);
  return until(`"${expected}" in the log`, () =>
    vscode.workspace.textDocuments
      .find((d) => d.uri.scheme === 'output' && d.uri.path.endsWith(show.slice(SHOW.length)) && d.getText().includes(expected))
      ?.getText(),
  );
}

/** Reads a whole response stream, so a test can assert what it held or how it failed. */
export async function readResponse(response: vscode.LanguageModelChatResponse): Promise<{ text: string; calls: vscode.LanguageModelToolCallPart[] }> {
  let text = '';
  const calls: vscode.LanguageModelToolCallPart[] = [];
  for await (const part of response.stream) {
    if (part instanceof vscode.LanguageModelTextPart) text += part.value;
    else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  }
  return { text, calls };
}

/** The sessions view's root sessions, group after group (the agent groups are the tree's top rows). */
export async function sessionRoots(tree: SessionsTree): Promise<SessionNode[]> {
  return (await tree.getChildren()).flatMap((row) => (row.kind === 'agent' ? row.sessions : [row]));
}
