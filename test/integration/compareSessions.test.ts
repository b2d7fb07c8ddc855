import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { ForkReceipt } from '../../src/store/forks';
import type { TapeStore } from '../../src/store/tapeStore';
import { event, message } from '../unit/inspector/helpers';

const EXTENSION_ID = 'agent-tape.agent-tape';
const P = 'compare-parent';

describe('"Tape: Compare With…" in a real VS Code', () => {
  let store: TapeStore;
  let fork: ForkReceipt;

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID);
    assert.ok(ext);
    store = await (await ext.activate()).workspaceStore();
    // 1 session/start, then a finished turn at 2-5.
    await store.appendMany(P, [
      event('turn/start', { turnId: 't1' }),
      message('m1', 'user', 1, 'plan the parser'),
      message('m2', 'assistant', 2, 'a plan'),
      event('turn/end', { turnId: 't1' }),
    ]);
    fork = (await vscode.commands.executeCommand<ForkReceipt>('agentTape.forkSession', P, 5)) as ForkReceipt;
    assert.ok(fork, 'a fork');
    await store.appendMany(fork.forkSessionId, [message('f1', 'user', 3, 'try it another way'), message('f2', 'assistant', 4, 'done differently')]);
  });

  it('given two sessions (the inspector\'s Compare), opens their comparison read-only, titled "A ↔ B", as `agent-tape diff` prints it', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('agentTape.compareSessions', P, fork.forkSessionId);
    assert.ok(uri, 'the comparison opened');
    assert.strictEqual(uri.scheme, 'agent-tape-compare');
    assert.strictEqual(uri.path, `/${P} ↔ ${fork.forkSessionId}`);
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.toString(), uri.toString(), 'the comparison is the active editor');
    const lines = doc.getText().split('\n');
    assert.strictEqual(lines[0], 'shared prefix: 5 entries (A and B are the same up to entry 5)');
    assert.strictEqual(lines[1], `A ${P} at #5, B ${fork.forkSessionId} at #8`);
    assert.ok(lines.includes('    #7 user: try it another way'), doc.getText());
    assert.ok(
      lines.includes(`total B ${fork.forkSessionId}: 3 entries, 0 requests, 0 in, 0 out, 0 cached tokens, 0 tool calls, 0 files changed`),
      doc.getText(),
    );
  });

  it('refuses a session the tape does not have, opening nothing', async () => {
    const before = vscode.window.activeTextEditor?.document.uri.toString();
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.compareSessions', P, 'no-such-session'), undefined);
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), before);
  });
});
