import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { TapeStore } from '../../src/store/tapeStore';
import type { AgentTapeApi } from '../../src/extension/extension';
import { importJsonl } from '../../src/store/tapeFile';
import { tempDir } from '../unit/store/helpers';
import { agentTapeLog, sessionRoots } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const TAPE_EDITOR = 'agentTape.tapeFile';
const root = path.resolve(__dirname, '../../..');
const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');

const tabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
const editorTab = (file: string) =>
  tabs().find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === TAPE_EDITOR && t.input.uri.fsPath === file);
const panelTabs = () => tabs().filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentTape.inspector'));
const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The sample tape under another session id, a day later: a second, newer session to list. */
function laterCopy(file: string, sessionId: string): void {
  const lines = fs
    .readFileSync(SAMPLE, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { sessionId: string; createdAt: number });
  fs.writeFileSync(file, lines.map((l) => JSON.stringify({ ...l, sessionId, createdAt: l.createdAt + 86_400_000 })).join('\n') + '\n');
}

describe('Tape Inspector in a real VS Code', () => {
  const dir = tempDir();
  let api: AgentTapeApi;

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
  });
  after(async () => {
    await vscode.window.tabGroups.close([
      ...tabs().filter((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === TAPE_EDITOR),
      ...panelTabs(),
    ]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers its commands and contributes the tape file editor for both tape formats', async () => {
    const registered = await vscode.commands.getCommands(true);
    for (const c of [
      'agentTape.openInspector',
      'agentTape.importTapeFile',
      'agentTape.sessions.openInspector',
      'agentTape.sessions.export',
      'agentTape.sessions.compact',
      'agentTape.sessions.handoff',
      'agentTape.sessions.delete',
    ]) {
      assert.ok(registered.includes(c), `${c} is registered`);
    }
    const editors = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.customEditors as {
      viewType: string;
      selector: { filenamePattern: string }[];
    }[];
    assert.deepStrictEqual(
      editors.find((e) => e.viewType === TAPE_EDITOR)?.selector.map((s) => s.filenamePattern),
      ['*.tape.sqlite', '*.tape.jsonl'],
    );
  });

  it('opens a .tape.jsonl in the inspector editor, read-only', async () => {
    const file = path.join(dir, 'sample.tape.jsonl');
    fs.copyFileSync(SAMPLE, file);
    const before = sha256(file);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), TAPE_EDITOR);
    const tab = await until('the tape editor tab', () => editorTab(file));
    assert.strictEqual(tab.label, 'sample.tape.jsonl');
    await agentTapeLog(`tape file ${file} opened read-only`);
    assert.strictEqual(sha256(file), before);
  });

  it('opens a truncated .tape.sqlite to an error naming the file, and leaves its bytes as they were', async () => {
    const whole = path.join(dir, 'whole.tape.sqlite');
    await importJsonl(SAMPLE, whole);
    const file = path.join(dir, 'truncated.tape.sqlite');
    const bytes = fs.readFileSync(whole);
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const before = sha256(file);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), TAPE_EDITOR);
    await until('the tape editor tab', () => editorTab(file));
    const log = await agentTapeLog(`could not open the tape file: ${file}`);
    assert.match(log, new RegExp(`could not open the tape file: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+`));
    assert.strictEqual(sha256(file), before, 'the file is unchanged');
    assert.deepStrictEqual(
      fs.readdirSync(dir).filter((f) => f.startsWith('truncated')),
      ['truncated.tape.sqlite'],
      'no journal, lock or temp file beside it',
    );
  });

  it('refuses a .tape.jsonl that is a FIFO, or too large for the editor, to an error naming the file, at once', async () => {
    const fifo = path.join(dir, 'fifo.tape.jsonl');
    execFileSync('mkfifo', [fifo]);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(fifo), TAPE_EDITOR);
    await agentTapeLog(`could not open the tape file: ${fifo}: is a FIFO (named pipe), not a regular file`);
    const big = path.join(dir, 'big.tape.jsonl');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 200 << 20); // sparse: the size is what is refused, unread
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(big), TAPE_EDITOR);
    await agentTapeLog(`could not open the tape file: ${big}: is 200 MiB, over the 128 MiB limit for a JSONL tape`);
    assert.ok(fs.lstatSync(fifo).isFIFO(), 'the FIFO is left as it was');
  });

  it('"Tape: Import Tape File…" adds a file\'s sessions to the workspace tape, and the sessions view lists them newest first', async () => {
    const newer = path.join(dir, 'newer.tape.jsonl');
    laterCopy(newer, 'inspector-newer');
    const first = await vscode.commands.executeCommand<{ imported: { sessionId: string; entries: number }[]; skipped: string[] }>(
      'agentTape.importTapeFile',
      vscode.Uri.file(SAMPLE),
    );
    assert.deepStrictEqual(first, { imported: [{ sessionId: 'inspector-sample', entries: 25 }], skipped: [] });
    await vscode.commands.executeCommand('agentTape.importTapeFile', vscode.Uri.file(newer));
    const again = await vscode.commands.executeCommand<{ skipped: string[] }>('agentTape.importTapeFile', vscode.Uri.file(SAMPLE));
    assert.deepStrictEqual(again?.skipped, ['inspector-sample'], 'a session already on the tape is skipped');

    const groups = await api.sessionsTree.getChildren();
    const own = groups.find((g) => g.kind === 'agent' && g.agent === 'agent-tape');
    assert.ok(own?.kind === 'agent', "the tape's sessions are Agent Tape's own: their group is a top row");
    const rows = own.sessions;
    const times = rows.map((r) => r.lastCreatedAt);
    assert.deepStrictEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    const ours = rows.filter((r) => r.sessionId.startsWith('inspector-'));
    assert.deepStrictEqual(
      ours.map((r) => [r.sessionId, r.title, r.entryCount]),
      [
        ['inspector-newer', 'Read notes.md and tell me what it says <script>alert(1)</script>', 25],
        ['inspector-sample', 'Read notes.md and tell me what it says <script>alert(1)</script>', 25],
      ],
    );
    const item = api.sessionsTree.getTreeItem(ours[0]);
    // The sample's two provider/attempt entries: 900 + 700 in, 60 + 20 out, 0 + 512 cached.
    assert.strictEqual(item.description, '25 entries · 2 requests · 1.6k in · 80 out · 512 cached');
    assert.strictEqual(item.contextValue, 'session', 'the tape is writable here');
  });

  it('"Delete Session…" deletes nothing unless its confirmation is accepted', async () => {
    // The test workbench answers the modal without choosing Delete, as a user who cancels does.
    const row = (await sessionRoots(api.sessionsTree)).find((r) => r.sessionId === 'inspector-newer');
    assert.ok(row, 'imported by the test before');
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.sessions.delete', row), undefined);
    const store = await TapeStore.open(await api.workspaceTapeFile(), { readOnly: true });
    try {
      assert.strictEqual(store.headEntryId('inspector-newer'), 25, 'still on the tape');
    } finally {
      await store.close();
    }
  });

  it('"Tape: Open Inspector" opens one panel per session, revealed when asked for again', async () => {
    await vscode.commands.executeCommand('agentTape.openInspector', 'inspector-sample');
    const tab = await until('the inspector panel', () => panelTabs()[0]);
    await until("its title, the session's", () => (panelTabs()[0]?.label.startsWith('Tape: Read notes.md') ? true : undefined));
    await vscode.commands.executeCommand('agentTape.openInspector', 'inspector-sample');
    await new Promise((r) => setTimeout(r, 500)); // time for a second panel to appear, were one made
    assert.strictEqual(panelTabs().length, 1);
    await vscode.commands.executeCommand('agentTape.openInspector', 'inspector-newer');
    await until('a second panel, for the other session', () => (panelTabs().length === 2 ? true : undefined));
    await vscode.window.tabGroups.close([tab, ...panelTabs()]);
  });
});
