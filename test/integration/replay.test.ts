import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { agentTapeLog } from './helpers';
import { until } from './waiting';

const root = path.resolve(__dirname, '../../..');
const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');

interface Frame {
  id: number;
  line: number;
  name: string;
}

describe('step replay in a real VS Code', () => {
  before(async () => {
    await vscode.extensions.getExtension('agent-tape.agent-tape')?.activate();
  });

  it('replays a fixture tape in the debugger: stops on entry, steps three times, shows the folded view in Variables, tells where the cursor is', async () => {
    const started = new Promise<vscode.DebugSession>((resolve) => {
      const d = vscode.debug.onDidStartDebugSession((s) => {
        d.dispose();
        resolve(s);
      });
    });
    assert.ok(
      await vscode.debug.startDebugging(undefined, { type: 'agent-tape', request: 'launch', name: 'Replay the sample', tape: SAMPLE, stopOnEntry: true }),
    );
    const session = await started;
    try {
      const top = async (): Promise<Frame | undefined> =>
        ((await session.customRequest('stackTrace', { threadId: 1 })) as { stackFrames: Frame[] }).stackFrames[0];
      await until('the replay to stop on entry', async () => ((await top().catch(() => undefined))?.line === 1 ? true : undefined));

      for (let i = 0; i < 3; i++) await session.customRequest('next', { threadId: 1 });
      const frame = await until('the cursor on entry 4', async () => {
        const f = await top();
        return f?.line === 4 ? f : undefined;
      });
      assert.strictEqual(frame.name, 'inspector-sample #4 message message/user');

      const { scopes } = (await session.customRequest('scopes', { frameId: frame.id })) as { scopes: { name: string; variablesReference: number }[] };
      assert.deepStrictEqual(
        scopes.map((s) => s.name),
        ['Entry', 'View', 'Context', 'Projections'],
      );
      const variables = async (ref: number) =>
        (
          (await session.customRequest('variables', { variablesReference: ref })) as {
            variables: { name: string; value: string; variablesReference: number }[];
          }
        ).variables;
      const view = await variables(scopes[1].variablesReference);
      assert.strictEqual(view.find((v) => v.name === 'headEntryId')?.value, '4');
      const messages = await variables(view.find((v) => v.name === 'messages')?.variablesReference ?? 0);
      assert.deepStrictEqual(
        messages.map((m) => m.value.replace(/:.*/, '')),
        ['#4 user sent'],
      );

      // The stop was fired on replayCursor: its listener in the extension logged the cursor's entry.
      await agentTapeLog(`replay: stopped at inspector-sample#4 of ${SAMPLE}`);

      const doc = await until('the replay document VS Code opened for the frame', () =>
        vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'agent-tape-replay'),
      );
      assert.strictEqual(doc.languageId, 'agent-tape-replay');
      assert.strictEqual(doc.lineCount, 25);
      assert.match(doc.lineAt(3).text, /^#4 message message\/user: Read notes\.md/);
    } finally {
      const ended = new Promise<void>((resolve) => {
        const d = vscode.debug.onDidTerminateDebugSession((s) => {
          if (s.id !== session.id) return;
          d.dispose();
          resolve();
        });
      });
      await vscode.debug.stopDebugging(session);
      await ended;
      // The replay document stays open after the session; the Chat view would attach the active editor to later requests.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
