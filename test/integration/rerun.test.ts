import * as assert from 'assert';
import * as vscode from 'vscode';
import { OpenTape } from '../../src/agent/session/openTape';
import type { AgentTapeApi } from '../../src/extension/extension';
import { LmModelPort } from '../../src/extension/model/lmModelPort';
import type { RerunSummary } from '../../src/extension/rerun/registerRerun';
import type { TapeStore } from '../../src/store/tapeStore';
import { EVAL_START_ENTRY_ID, evalStartOf } from '../../src/tape/evaluation/evaluationEntries';
import { sessionRoots } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const S = 'rerun-session';
/** The scripted test model (test/fixtures/fake-lm): `tool:NAME {json}` makes it call the tool; otherwise it echoes. */
const FAKE = { vendor: 'agent-tape-fake', id: 'fake-1' };

const tabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
const rerunDiffs = () => tabs().filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === 'agent-tape-rerun');
const requestIds = (store: TapeStore, sessionId: string) =>
  store
    .entries(sessionId)
    .filter((e) => e.name === 'view/assembled')
    .map((e) => e.entryId);

describe('Re-run and evaluate in a real VS Code, with the scripted test model', () => {
  let api: AgentTapeApi;
  let store: TapeStore;
  let requests: number[];
  let fork: string;

  before(async function () {
    this.timeout(60_000);
    const ext = vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    store = await api.workspaceStore();
    const model = await until('the scripted test model', async () => (await vscode.lm.selectChatModels(FAKE))[0]);
    // A session recorded with the same model, as @tape records one: a tool turn (two requests) and a plain turn.
    const session = new OpenTape(store).session(S);
    const setup = {
      model: new LmModelPort(model),
      workspace: vscode.workspace.workspaceFolders![0].uri.fsPath,
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-12-02' },
    };
    for (const text of ['tool:list_dir {"path":"."}', 'and now say hello']) {
      const outcome = await session.runTurn(text, setup, { signal: new AbortController().signal });
      assert.strictEqual(outcome.outcome, 'answer', JSON.stringify(outcome));
    }
    requests = requestIds(store, S);
    assert.strictEqual(requests.length, 3);
  });
  after(async () => {
    await vscode.window.tabGroups.close(tabs().filter((t) => t.input instanceof vscode.TabInputTextDiff || t.input instanceof vscode.TabInputWebview));
  });

  it('"Re-run Request…" sends the recorded request again, records it in a fork and shows it beside the recorded response', async () => {
    const before = store.entries(S).length;
    const r = await vscode.commands.executeCommand<RerunSummary>('agentTape.rerunRequest', S, requests[0], { model: FAKE, variation: {} });
    assert.ok(r, 'the command returned its summary');
    assert.match(r.forkSessionId, new RegExp(`^${S}::fork::`));
    assert.deepStrictEqual([r.status, r.verdict, r.promptHashMatches], ['ok', 'agree', true]);
    assert.deepStrictEqual(r.toolCalls, [{ name: 'list_dir', arguments: { path: '.' } }]);
    assert.strictEqual(store.entries(S).length, before, 'the session itself is not written to');
    assert.ok(
      store.entries(r.forkSessionId).some((e) => e.name === 'rerun/request'),
      'the fork holds the rerun/request event',
    );
    fork = r.forkSessionId;
    const diff = await until('the diff editor of recorded and re-run', () => rerunDiffs()[0]);
    const input = diff.input as vscode.TabInputTextDiff;
    const [recorded, rerun] = await Promise.all([vscode.workspace.openTextDocument(input.original), vscode.workspace.openTextDocument(input.modified)]);
    for (const d of [recorded, rerun]) assert.match(d.getText(), /## Tool calls \(1\)\nlist_dir \{"path":"\."\}\n/);
    assert.match(recorded.getText(), /^# Recorded: /);
    assert.match(rerun.getText(), /^# Re-run: [\s\S]*status: ok\n/);
  });

  it("the re-run's fork is a fork of the session: in the sessions view under it", async () => {
    const roots = await sessionRoots(api.sessionsTree);
    const parent = roots.find((n) => n.sessionId === S);
    assert.ok(parent, 'the session is a root of the sessions view');
    const row = parent.children.find((c) => c.sessionId === fork && c.relation === 'fork');
    assert.ok(row, JSON.stringify(parent.children.map((c) => c.sessionId)));
    // Its menus offer Discard but not Merge (package.json matches `session.fork.open` exactly for Merge).
    assert.strictEqual(api.sessionsTree.getTreeItem(row).contextValue, 'session.fork.open.rerun');
    const before = store.entries(S).length;
    assert.strictEqual(
      await vscode.commands.executeCommand('agentTape.mergeFork', fork),
      undefined,
      'a merge asked for anyway is refused (with an error message)',
    );
    assert.strictEqual(store.entries(S).length, before, 'nothing was merged into the session');
  });

  it('"Continue Re-run in Its Fork" answers the identical call from the tape and goes on to the answer', async () => {
    const r = await vscode.commands.executeCommand<{ outcome: string; divergence: unknown; steps: number }>('agentTape.continueRerun', fork, { model: FAKE });
    assert.ok(r);
    assert.deepStrictEqual([r.outcome, r.divergence], ['answer', null]);
    const replayed = store.entries(fork).filter((e) => e.kind === 'tool_result');
    assert.strictEqual(replayed.length, 1, 'the recorded result, not a new run of the tool');
  });

  it('a re-run with another system prompt sends another prompt and says so', async () => {
    const r = await vscode.commands.executeCommand<RerunSummary>('agentTape.rerunRequest', S, requests[2], {
      model: FAKE,
      variation: { systemPrompt: 'Be brief.' },
    });
    assert.ok(r);
    assert.deepStrictEqual([r.status, r.promptHashMatches], ['ok', false]);
    assert.match(r.text, /^echo\(\d+\): and now say hello$/);
  });

  it('"Evaluate Session with a Model…" judges every request, records the evaluation and opens its report in the inspector', async () => {
    const r = await vscode.commands.executeCommand<{
      evalSessionId: string | null;
      summary: { requests: number; agree: number };
      requests: { entryId: number; status: string }[];
    }>('agentTape.evaluateSession', S, { model: FAKE });
    assert.ok(r?.evalSessionId, 'recorded');
    assert.deepStrictEqual(
      r.requests,
      requests.map((entryId) => ({ entryId, status: 'agree' })),
    );
    assert.strictEqual(evalStartOf(store.getEntry(r.evalSessionId, EVAL_START_ENTRY_ID))?.sourceSessionId, S);
    await until('the inspector on the session', () =>
      tabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentTape.inspector') && t.isActive),
    );
  });

  it('refuses a request that is not one, appending nothing', async () => {
    const sessions = store.sessions().length;
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.rerunRequest', S, 1, { model: FAKE, variation: {} }), undefined);
    assert.strictEqual(store.sessions().length, sessions);
  });
});
