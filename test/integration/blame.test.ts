import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { BlameFileResult } from '../../src/extension/blame/blameFilePick';
import type { AgentTapeApi } from '../../src/extension/extension';
import { TapeStore } from '../../src/store/tapeStore';
import { event, message, toolCall, toolResult } from '../unit/inspector/helpers';
import { agentTapeLog } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const S = 'blame-itest';
const FILE = 'blame-sample.txt';
const PROMPT = 'Write the blame sample';

/** The text of the hovers VS Code gathers at a line, ours among them or not. */
async function hoverText(uri: vscode.Uri, line: number): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 0));
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : c.value))
    .join('\n');
}

describe('agent blame in a real VS Code', () => {
  const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = path.join(root, FILE);
  const uri = vscode.Uri.file(file);
  let editEntry: number;
  let requestEntry: number;
  /** Blame's state is kept per workspace: the suite leaves it as it found it, off. */
  let on = false;
  const toggle = async (): Promise<unknown> => {
    const state = await vscode.commands.executeCommand('agentTape.toggleBlame');
    on = state === true;
    return state;
  };

  before(async () => {
    const api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
    // A request as the sample tape recorded it, so Show the Request and Re-run have a real manifest.
    const sample = await TapeStore.open(path.resolve(__dirname, '../../../demo/samples/coding-session.tape.sqlite'), { readOnly: true });
    const manifest = sample.entries('demo-coding').find((e) => e.name === 'view/assembled')!.payload.data as Record<string, unknown>;
    await sample.close();
    const store = await api.workspaceStore();
    await store.appendMany(S, [
      event('turn/start', { turnId: 't1' }),
      message('u1', 'user', 1, PROMPT),
      event('view/assembled', { ...manifest, sessionId: S, turnId: 't1' }),
      toolCall('a1', 'edit-1', 'apply_edit', { path: FILE, newText: 'one\ntwo\nthree\n' }),
      toolResult('a1', 'edit-1', 'apply_edit', 'ok', `created ${FILE}`),
      message('a1', 'assistant', 2, 'Written.'),
      event('turn/end', { turnId: 't1' }),
    ]);
    const entries = store.entries(S);
    editEntry = entries.find((e) => e.kind === 'tool_call')!.entryId;
    requestEntry = entries.find((e) => e.name === 'view/assembled')!.entryId;
    // The file as the edit left it.
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    await vscode.window.showTextDocument(uri);
  });

  after(async () => {
    if (on) await toggle();
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    fs.rmSync(file, { force: true });
  });

  it('Toggle Agent Blame adds the hover, with the agent, session, turn, prompt and the three actions at the edit and its request; off, the hover is gone', async () => {
    assert.ok(!(await hoverText(uri, 1)).includes('Agent Tape blame'), 'off: no blame hover');
    assert.strictEqual(await toggle(), true);
    const hover = await hoverText(uri, 1);
    assert.ok(hover.includes('**Agent Tape blame:** `Agent Tape`'), hover);
    assert.ok(hover.includes(' · turn 1 · '), hover);
    assert.ok(hover.includes(`Prompt: \`${PROMPT}\``), hover);
    const links = Array.from(hover.matchAll(/\[([^\]]+)\]\((command:[^?]+)\?([^)]*)\)/g), (m) => [m[1], m[2], JSON.parse(decodeURIComponent(m[3]))]);
    assert.deepStrictEqual(links, [
      ['Open in Inspector', 'command:agentTape.openInspector', [S, editEntry]],
      ['Show the Request', 'command:agentTape.openInspector', [S, requestEntry]],
      ['Re-run…', 'command:agentTape.rerunRequest', [S, requestEntry]],
    ]);

    assert.strictEqual(await toggle(), false);
    assert.ok(!(await hoverText(uri, 1)).includes('Agent Tape blame'), 'off again: the hover provider is gone');
    assert.strictEqual(await toggle(), true);
  });

  it('Blame File lists the turn that wrote the file; picking it selects its lines, then its actions are offered', async () => {
    const blaming = vscode.commands.executeCommand<BlameFileResult | undefined>('agentTape.blameFile');
    await agentTapeLog(`Blame File: 1 turn wrote lines of ${FILE}`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await agentTapeLog(`Blame File: lines 1-3 of ${FILE}, by ${S} entry ${editEntry}`);
    // The actions' pick, dismissed: closed until the command is done, should it show after the first close.
    let result: BlameFileResult | undefined;
    void blaming.then((r) => (result = r));
    await until('Blame File done', async () => {
      if (result === undefined) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      return result;
    });
    const turn = { sessionId: S, entryId: editEntry, agent: 'agent-tape', turn: 1, lines: 3, startLine: 1, endLine: 3 };
    assert.deepStrictEqual(result, { turns: [turn], picked: turn });
    const selection = vscode.window.activeTextEditor?.selection;
    assert.deepStrictEqual([selection?.start.line, selection?.end.line], [0, 2]);
  });

  it("a person's edit of a line (unsaved) takes it over; the lines around it stay the agent's", async () => {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(1, 0, 1, 3), 'two, by hand');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(!(await hoverText(uri, 1)).includes('Agent Tape blame'), "line 2 is the person's now");
    assert.ok((await hoverText(uri, 0)).includes('Agent Tape blame'), 'line 1 is still the agent');
    assert.ok((await hoverText(uri, 2)).includes('Agent Tape blame'), 'line 3 is still the agent');
  });
});
