import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { defaultTools } from '../../src/agent/agentSession';
import type { ToolContext } from '../../src/agent/tools/tool';
import { ChatToolbox } from '../../src/extension/tools/chatToolbox';
import { CHAT_ONLY_TOOLS } from '../../src/extension/tools/toolContributions';
import { VsCodeWorkspace } from '../../src/extension/tools/vscodeWorkspace';

const folder = (): vscode.Uri => {
  const first = vscode.workspace.workspaceFolders?.[0];
  assert.ok(first, 'the suite runs with a workspace folder');
  return first.uri;
};

/** The text parts of a tool result, as a model would read them. */
const textOf = (result: vscode.LanguageModelToolResult): string =>
  result.content
    .filter((p) => p instanceof vscode.LanguageModelTextPart)
    .map((p) => p.value)
    .join('');

const invoke = async (name: string, input: object): Promise<string> => textOf(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));

const log = vscode.window.createOutputChannel('Agent Tape tools test', { log: true });

describe('the core tools in VS Code', () => {
  // A folder of its own inside the demo workspace, removed afterwards.
  const dir = `tools-test-${process.pid}`;
  let root: string;
  const abs = (rel: string) => path.join(root, rel);

  before(() => {
    root = folder().fsPath;
    fs.mkdirSync(abs(`${dir}/sub`), { recursive: true });
    fs.writeFileSync(abs(`${dir}/a.txt`), 'alpha\nbeta\ngamma\n');
    fs.writeFileSync(abs(`${dir}/sub/b.md`), '# b\n');
  });

  after(async () => {
    // Saved first: closing a dirty editor asks, and the test workbench's answer saved it after the folder was gone.
    await vscode.commands.executeCommand('workbench.action.files.saveAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(abs(dir), { recursive: true, force: true });
    log.dispose();
  });

  it('lists the 11 core tools but run_subagent (chat-only) in vscode.lm.tools, with the schemas and descriptions the core validates with', () => {
    assert.strictEqual(
      vscode.lm.tools.find((t) => t.name === 'run_subagent'),
      undefined,
    );
    for (const spec of defaultTools()
      .specs()
      .filter((s) => !CHAT_ONLY_TOOLS.has(s.name))) {
      const tool = vscode.lm.tools.find((t) => t.name === spec.name);
      assert.ok(tool, `${spec.name} is listed`);
      assert.deepStrictEqual(tool.inputSchema, spec.parameters, spec.name);
      assert.strictEqual(tool.description, spec.description, spec.name);
      assert.ok(tool.tags.includes('agent-tape'), spec.name);
    }
  });

  it('read_file through vscode.lm.invokeTool returns the file (and a line range) from the workspace', async () => {
    assert.strictEqual(await invoke('read_file', { path: `${dir}/a.txt` }), 'alpha\nbeta\ngamma\n');
    assert.strictEqual(await invoke('read_file', { path: `${dir}/a.txt`, startLine: 2, endLine: 2 }), 'beta\n');
  });

  it('list_dir and find_files through vscode.lm.invokeTool', async () => {
    assert.strictEqual(await invoke('list_dir', { path: dir }), 'a.txt\nsub/');
    assert.strictEqual(await invoke('find_files', { pattern: `${dir}/**/*.md` }), `${dir}/sub/b.md`);
  });

  it("a core error result fails the call with the core's text, so the calling model reads it as an error", async () => {
    await assert.rejects(invoke('read_file', { path: `${dir}/missing.txt` }), /missing\.txt does not exist/);
    await assert.rejects(invoke('read_file', { path: '../outside.txt' }), /outside the workspace root/);
    // Whether or not @tape has opened a tape by now: a schema violation fails before any tape is needed.
    await assert.rejects(invoke('tape_search', { query: 'x', limit: 0 }), /invalid input for tape_search: ✖ .*\n {2}→ at limit/);
  });

  it('an edit that cannot apply is not put to the user: the call fails with the core error and changes nothing', async () => {
    await assert.rejects(invoke('apply_edit', { path: `${dir}/a.txt`, oldText: 'delta', newText: 'x' }), /oldText occurs 0 times/);
    assert.strictEqual(fs.readFileSync(abs(`${dir}/a.txt`), 'utf8'), 'alpha\nbeta\ngamma\n');
  });

  describe('VsCodeWorkspace', () => {
    let ws: VsCodeWorkspace;
    before(() => {
      ws = new VsCodeWorkspace(folder());
    });

    it('writes an existing file through a WorkspaceEdit: on disk at once, and Undo in the editor restores the text', async () => {
      const rel = `${dir}/undo.txt`;
      fs.writeFileSync(abs(rel), 'before\n');
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs(rel)));
      await ws.writeFile(rel, 'after\n');
      assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'after\n');
      assert.strictEqual(editor.document.getText(), 'after\n', 'the open editor follows the edit');
      assert.strictEqual(editor.document.isDirty, false, 'the edit was saved');
      await vscode.commands.executeCommand('undo');
      assert.strictEqual(editor.document.getText(), 'before\n');
    });

    it('edits a file not open in an editor, and creates new files with their folders', async () => {
      await ws.writeFile(`${dir}/a.txt`, 'changed\n');
      assert.strictEqual(fs.readFileSync(abs(`${dir}/a.txt`), 'utf8'), 'changed\n');
      await ws.writeFile(`${dir}/new/deeper/c.txt`, 'created\n');
      assert.strictEqual(fs.readFileSync(abs(`${dir}/new/deeper/c.txt`), 'utf8'), 'created\n');
    });

    it('reads the unsaved text of a file open in an editor, the text the user sees', async () => {
      const rel = `${dir}/dirty.txt`;
      fs.writeFileSync(abs(rel), 'saved\n');
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs(rel)));
      await editor.edit((b) => b.insert(new vscode.Position(0, 0), 'unsaved '));
      assert.strictEqual(Buffer.from((await ws.readFile(rel, 1024)).bytes).toString('utf8'), 'unsaved saved\n');
      assert.deepStrictEqual(await ws.readFile(rel, 3).then((r) => ({ text: Buffer.from(r.bytes).toString('utf8'), size: r.size })), { text: 'uns', size: 14 });
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    });

    it('refuses paths outside the workspace folder', async () => {
      await assert.rejects(ws.writeFile('../escape.txt', 'x'), /outside the workspace root/);
      await assert.rejects(ws.readFile('/etc/hostname', 1024), /outside the workspace root/);
      assert.strictEqual(fs.existsSync(path.join(root, '..', 'escape.txt')), false);
    });
  });

  describe('ChatToolbox', () => {
    const ctx = (): ToolContext => ({ workspace: new VsCodeWorkspace(folder()), permissions: { edits: false, commands: false } });

    it('offers the core tools, without apply_edit and run_command when the workspace is not trusted, and ignores bad extra tool names', () => {
      const names = (isTrusted: boolean) =>
        new ChatToolbox({ toolInvocationToken: undefined, extraTools: ['read_file', 'no_such_tool'], isTrusted, log }).specs().map((s) => s.name);
      assert.deepStrictEqual(names(true), defaultTools().names());
      assert.deepStrictEqual(
        names(false),
        defaultTools()
          .names()
          .filter((n) => n !== 'apply_edit' && n !== 'run_command'),
      );
    });

    it('runs read-only tools in-process and refuses confirmed tools in an untrusted workspace', async () => {
      const toolbox = new ChatToolbox({ toolInvocationToken: undefined, extraTools: [], isTrusted: false, log });
      assert.deepStrictEqual(await toolbox.invoke('list_dir', { path: `${dir}/sub` }, ctx()), { status: 'ok', output: 'b.md' });
      const refused = await toolbox.invoke('run_command', { command: 'touch x' }, ctx());
      assert.strictEqual(refused.status, 'error');
      assert.match(refused.output, /not available in an untrusted workspace/);
    });

    it('gets the structured result of a confirmed tool run through VS Code (here an edit that cannot apply, so nobody is asked)', async () => {
      const toolbox = new ChatToolbox({ toolInvocationToken: undefined, extraTools: [], isTrusted: true, log });
      assert.ok(toolbox.shownByEditor('apply_edit') && !toolbox.shownByEditor('read_file'));
      const result = await toolbox.invoke('apply_edit', { path: `${dir}/sub/b.md`, oldText: 'not there', newText: 'x' }, ctx());
      assert.deepStrictEqual(result, {
        status: 'error',
        output: `oldText occurs 0 times in ${dir}/sub/b.md; it must occur exactly once (check the exact text, whitespace included)`,
      });
      const invalid = await toolbox.invoke('apply_edit', { path: `${dir}/sub/b.md` }, ctx());
      assert.match(invalid.output, /invalid input for apply_edit: ✖ .*\n {2}→ at newText/);
    });

    // Without a chat's token VS Code asks in a modal dialog; the smoke-test driver this suite runs
    // under answers every dialog with yes ("Dialog requested during smoke test"), which stands in
    // for the user's click here. The chat's own confirmation is clicked in the Chromium suite.
    it('runs a confirmed edit and a command through VS Code and gets their structured results back', async () => {
      const toolbox = new ChatToolbox({ toolInvocationToken: undefined, extraTools: [], isTrusted: true, log });
      const edited = await toolbox.invoke('apply_edit', { path: `${dir}/sub/b.md`, oldText: '# b', newText: '# B' }, ctx());
      assert.deepStrictEqual(edited, { status: 'ok', output: `replaced 1 occurrence in ${dir}/sub/b.md` });
      assert.strictEqual(fs.readFileSync(abs(`${dir}/sub/b.md`), 'utf8'), '# B\n');
      assert.deepStrictEqual(await toolbox.invoke('run_command', { command: 'echo hi' }, ctx()), { status: 'ok', output: 'exit code 0\nhi\n' });
      assert.deepStrictEqual(await toolbox.invoke('run_command', { command: 'echo no; exit 3' }, ctx()), { status: 'error', output: 'exit code 3\nno\n' });
    });
  });
});
