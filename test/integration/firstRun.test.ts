import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SetUpOutcome } from '../../src/extension/model/modelSetUp';
import { closedPort } from '../support/fakeOpenAiServer';
import { until } from './waiting';

const provider = () => vscode.workspace.getConfiguration('agentTape.provider');
const SAMPLE = path.join('demo', 'samples', 'coding-session.tape.sqlite');

/** What the walkthrough's steps run, inside VS Code: the sample tape's two commands and the model set-up. */
describe('first run: the sample tape and Tape: Set Up a Model…', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await provider().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await provider().update('models', undefined, vscode.ConfigurationTarget.Global);
    if (server) await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Tape: Set Up a Model… makes a model a local server lists the own provider’s, and it shows in vscode.lm', async () => {
    server = http.createServer((req, res) => {
      res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'first-run-model' }, { id: 'other-model' }] }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const absent = await closedPort();

    const outcome = await vscode.commands.executeCommand<SetUpOutcome>('agentTape.setUpModel', {
      servers: [
        { name: 'Nothing here', port: absent },
        { name: 'Local test server', port },
      ],
      model: 'first-run-model',
    });
    assert.deepStrictEqual(outcome, { configured: { server: 'Local test server', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'first-run-model' } });
    assert.strictEqual(provider().inspect('baseUrl')?.globalValue, `http://127.0.0.1:${port}/v1`);
    assert.deepStrictEqual(provider().inspect('models')?.globalValue, [{ id: 'first-run-model' }]);
    const model = await until('the model in vscode.lm', async () => (await vscode.lm.selectChatModels({ vendor: 'agent-tape', id: 'first-run-model' }))[0]);
    assert.strictEqual(model.id, 'first-run-model');
  });

  it('Tape: Set Up a Model… with no server answering configures nothing', async () => {
    const outcome = await vscode.commands.executeCommand<SetUpOutcome>('agentTape.setUpModel', {
      servers: [{ name: 'Nothing here', port: await closedPort() }],
      model: 'any',
    });
    assert.deepStrictEqual(outcome, { chose: 'nothing' });
    assert.strictEqual(provider().inspect('baseUrl')?.globalValue, undefined);
  });

  it('Tape: Open the Sample Tape opens the sample that ships with the extension in the Tape Inspector', async () => {
    await vscode.commands.executeCommand('agentTape.openSampleTape');
    const tab = await until('the sample in the tape editor', () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === 'agentTape.tapeFile' && t.input.uri.fsPath.endsWith(SAMPLE)),
    );
    const ext = vscode.extensions.getExtension('agent-tape.agent-tape');
    assert.strictEqual((tab.input as vscode.TabInputCustom).uri.fsPath, path.join(ext?.extensionPath ?? '', SAMPLE));
  });

  it('Tape: Replay the Sample Tape starts a replay of its coding session', async () => {
    const started = new Promise<vscode.DebugSession>((resolve) => {
      const l = vscode.debug.onDidStartDebugSession((s) => {
        l.dispose();
        resolve(s);
      });
    });
    await vscode.commands.executeCommand('agentTape.replaySampleTape');
    const session = await started;
    assert.strictEqual(session.type, 'agent-tape');
    assert.strictEqual(session.configuration.session, 'demo-coding');
    assert.ok(String(session.configuration.tape).endsWith(SAMPLE));
  });
});
