import * as assert from 'assert';
import * as vscode from 'vscode';

describe('extension in a real VS Code', () => {
  before(() => console.log(`    running inside VS Code ${vscode.version} (${vscode.env.appName}, ui kind ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'})`));

  it('activates lazily: no `*` or start-up activation', () => {
    const ext = vscode.extensions.getExtension('agent-tape.agent-tape');
    assert.ok(ext, 'the extension under development is installed');
    const events: string[] = ext.packageJSON.activationEvents ?? [];
    assert.ok(!events.includes('*') && !events.includes('onStartupFinished'), `eager activation events: ${events.join(', ')}`);
  });

  it('"Tape: Show Version" loads sql.js in the extension host and returns its SQLite version', async () => {
    const info = await vscode.commands.executeCommand<{ extension: string; sqlite: string }>('agentTape.showVersion');
    assert.ok(info, 'the command returned a result');
    assert.match(info.sqlite, /^3\.\d+\.\d+$/);
    assert.strictEqual(info.extension, vscode.extensions.getExtension('agent-tape.agent-tape')?.packageJSON.version);
    console.log(`    SQLite ${info.sqlite} via sql.js in the extension host`);
  });

  it('the test language model fixture is registered for later chat tests', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: 'agent-tape-fake' });
    assert.strictEqual(models.length, 1);
    assert.strictEqual(models[0].id, 'fake-1');
  });
});
