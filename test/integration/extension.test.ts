import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { VersionInfo } from '../../src/extension/commands';
import { sqliteVersion } from '../../src/store/sqljs';
import { TapeStore } from '../../src/store/tapeStore';
import { message, tempDir } from '../unit/store/helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';

const aboutTabs = (): vscode.Tab[] =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentTape.about'));

const ext = vscode.extensions.getExtension(EXTENSION_ID);
// Read while mocha loads the test files, before any test of any file has run a command.
const activeAtLoad = ext?.isActive;

describe('extension in a real VS Code', () => {
  let shown: VersionInfo | undefined;

  before(() =>
    console.log(`    running inside VS Code ${vscode.version} (${vscode.env.appName}, ui kind ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'})`),
  );

  it('stays inactive until one of its commands runs, which activates it and registers every command it contributes', async () => {
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.strictEqual(activeAtLoad, false, 'nothing activated the extension at start-up');
    // Extensions that wait for the end of start-up are activated all at once; once one of them is active, ours would be too.
    const afterStartup = vscode.extensions.all.filter((e) => e.id !== EXTENSION_ID && (e.packageJSON.activationEvents ?? []).includes('onStartupFinished'));
    await until('the end of start-up', () => (afterStartup.some((e) => e.isActive) ? true : undefined), 30_000);
    assert.strictEqual(ext.isActive, false, 'nothing activated the extension when start-up finished');
    shown = await vscode.commands.executeCommand<VersionInfo | undefined>('agentTape.showVersion');
    assert.strictEqual(ext.isActive, true);
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('agentTape.')).sort();
    const contributed = (ext.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command).sort();
    assert.deepStrictEqual(registered, contributed, 'every contributed command is registered, and no other');
  });

  it('"Tape: Show Version" loads sql.js in the extension host and returns the extension and SQLite versions', async () => {
    assert.ok(shown, 'the command returned its result');
    assert.strictEqual(shown.extension, ext?.packageJSON.version);
    assert.match(shown.sqlite, /^3\.\d+\.\d+$/);
    assert.strictEqual(shown.sqlite, await sqliteVersion(), 'the version SQLite reports here');
    console.log(`    SQLite ${shown.sqlite} via sql.js in the extension host`);
  });

  it('logs activation and the versions to its "Agent Tape" log output channel', async () => {
    await vscode.commands.executeCommand('agentTape.showVersion');
    const [version, sqlite] = [ext?.packageJSON.version as string, await sqliteVersion()];
    // The workbench registers a "show" command per output channel (a log channel's id ends in
    // `.log`); the extension's appears once it made one, and shows the channel as an `output:` document.
    const SHOW = 'workbench.action.output.show.';
    const show = await until('the "Agent Tape" output channel', async () =>
      (await vscode.commands.getCommands(true)).find((c) => c === `${SHOW}${EXTENSION_ID}.Agent Tape.log`),
    );
    await vscode.commands.executeCommand(show);
    const expected = `[info] version: Agent Tape ${version}, SQLite ${sqlite} (sql.js)`;
    const text = await until("the channel's log lines", () =>
      vscode.workspace.textDocuments
        .find((d) => d.uri.scheme === 'output' && d.uri.path.endsWith(show.slice(SHOW.length)) && d.getText().includes(expected))
        ?.getText(),
    );
    assert.ok(text.includes(`[info] Agent Tape ${version} activated`), text);
  });

  it('"Tape: About Agent Tape" opens one webview panel, revealed instead of duplicated, and again after it is closed', async () => {
    assert.deepStrictEqual(aboutTabs(), []);
    await vscode.commands.executeCommand('agentTape.showAbout');
    const tab = await until('the About panel', () => aboutTabs()[0]);
    assert.strictEqual(tab.label, 'About Agent Tape');
    assert.ok(tab.isActive, 'the panel has focus');
    await vscode.commands.executeCommand('agentTape.showAbout');
    await new Promise((r) => setTimeout(r, 500)); // time for a second panel to appear, were one made
    assert.strictEqual(aboutTabs().length, 1);
    assert.ok(await vscode.window.tabGroups.close(tab));
    await until('the panel to close', () => (aboutTabs().length === 0 ? true : undefined));
    await vscode.commands.executeCommand('agentTape.showAbout');
    await until('the About panel to open again', () => aboutTabs()[0]);
    await vscode.window.tabGroups.close(aboutTabs());
  });

  it('the tape store runs in the extension host: creates a tape file, appends, reopens it and appends again', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'host.tape.sqlite');
    try {
      const store = await TapeStore.open(file);
      await store.append('s', message('m1', 'hello from the extension host'));
      await store.append('s', message('m2', 'a durable reply', { role: 'assistant', orderSeq: 2 }), { durable: true });
      await store.close();
      assert.ok(fs.existsSync(file) && fs.existsSync(`${file}.tapelog`), 'snapshot and journal are on disk');
      const reopened = await TapeStore.open(file);
      try {
        assert.deepStrictEqual(
          reopened.entries('s').map((e) => [e.entryId, e.name, e.payload.content ?? null]),
          [
            [1, 'session/start', null],
            [2, 'message/user', 'hello from the extension host'],
            [3, 'message/assistant', 'a durable reply'],
          ],
        );
        assert.strictEqual((await reopened.append('s', message('m3', 'after reopening', { orderSeq: 3 }))).entry.entryId, 4);
        assert.deepStrictEqual(
          reopened
            .search('durable OR reopening')
            .map((h) => h.entryId)
            .sort((a, b) => a - b),
          [3, 4],
        );
      } finally {
        await reopened.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
