import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { SessionNode, SessionsTreeNode } from '../../src/extension/inspector/sessionsView';
import { OpenTape } from '../../src/agent/session/openTape';
import type { ForkReceipt } from '../../src/store/forks';
import type { TapeStore } from '../../src/store/tapeStore';
import type { DiscardReceipt, MergeReceipt } from '../../src/tape/fork';
import { event, message } from '../unit/inspector/helpers';
import { agentTapeLog, sessionRoots } from './helpers';

const EXTENSION_ID = 'agent-tape.agent-tape';
const P = 'forks-parent';

const find = (rows: readonly SessionsTreeNode[] | undefined, sessionId: string): SessionNode | undefined => {
  for (const r of rows ?? []) {
    if (r.kind === 'session' && r.sessionId === sessionId) return r;
    const inner = find(r.kind === 'agent' ? r.sessions : r.children, sessionId);
    if (inner) return inner;
  }
  return undefined;
};

describe('Fork, merge and discard in a real VS Code', () => {
  let api: AgentTapeApi;
  let store: TapeStore;
  let first: ForkReceipt;
  let second: ForkReceipt;

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    store = await api.workspaceStore();
    // 1 session/start, a finished turn at 2-5, then a turn still running from 6.
    await store.appendMany(P, [
      event('turn/start', { turnId: 't1' }),
      message('m1', 'user', 1, 'plan the parser'),
      message('m2', 'assistant', 2, 'a plan'),
      event('turn/end', { turnId: 't1' }),
      event('turn/start', { turnId: 't2' }),
      message('m3', 'user', 3, 'and the lexer?'),
    ]);
  });

  it('"Tape: Fork Session" refuses a point inside a running turn, appending nothing', async () => {
    const before = store.sessions().length;
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.forkSession', P), undefined);
    await agentTapeLog('agentTape.forkSession failed: entry 7 of "forks-parent" is inside turn "t2"');
    assert.strictEqual(store.sessions().length, before);
  });

  it('"Tape: Fork Session" forks at an entry (the inspector\'s way) and at the head of a sessions view row', async () => {
    first = (await vscode.commands.executeCommand<ForkReceipt>('agentTape.forkSession', P, 5)) as ForkReceipt;
    assert.ok(first, 'a receipt');
    assert.match(first.forkSessionId, /^forks-parent::fork::[0-9a-f]{8}$/);
    assert.deepStrictEqual(
      { ...first, forkSessionId: undefined, forkId: undefined },
      { forkSessionId: undefined, forkId: undefined, parentSessionId: P, parentHeadEntryId: 5 },
    );
    await store.appendMany(first.forkSessionId, [message('f1', 'user', 3, 'try it another way'), message('f2', 'assistant', 4, 'done differently')]);
    const row = find(await api.sessionsTree.getChildren(), first.forkSessionId);
    assert.ok(row, 'the fork is in the sessions view');
    second = (await vscode.commands.executeCommand<ForkReceipt>('agentTape.forkSession', row)) as ForkReceipt;
    assert.strictEqual(second.parentSessionId, first.forkSessionId, 'a fork of the fork, at its head');
    assert.strictEqual(second.parentHeadEntryId, 8, "the fork's view: the parent's 1-5, its fork/start at 6, its two messages");
  });

  it('the sessions view nests forks under their parent with their state; Merge is offered on open forks that are not re-runs, Discard on open forks', async () => {
    const roots = await sessionRoots(api.sessionsTree);
    const parent = find(roots, P);
    assert.ok(parent && roots.includes(parent), 'the parent is a root');
    assert.deepStrictEqual(
      parent.children.map((c) => [c.sessionId, c.relation, c.state]),
      [[first.forkSessionId, 'fork', 'open']],
    );
    assert.deepStrictEqual(
      parent.children[0].children.map((c) => [c.sessionId, c.state]),
      [[second.forkSessionId, 'open']],
    );
    const item = api.sessionsTree.getTreeItem(parent.children[0]);
    assert.strictEqual(item.contextValue, 'session.fork.open');
    assert.strictEqual(item.description, `fork ${first.forkId} · open · 4 entries`);
    assert.strictEqual(item.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    const menus = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.menus['view/item/context'] as { command: string; when: string }[];
    // The `viewItem` part of each when clause, as VS Code reads `==` and `=~ /…/`.
    const shows = (when: string, item: string): boolean => {
      const equal = /viewItem == (\S+)$/.exec(when);
      if (equal) return equal[1] === item;
      const regex = /viewItem =~ \/(.+)\/$/.exec(when);
      assert.ok(regex, `a when clause this test reads: ${when}`);
      return new RegExp(regex[1]).test(item);
    };
    const offered = (command: string, item: string) => menus.filter((x) => x.command === command).every((m) => shows(m.when, item));
    const table = ['session.fork.open', 'session.fork.open.rerun', 'session.fork.merged', 'session.fork.discarded', 'session.fork.open.readOnly'].map(
      (item) => [item, offered('agentTape.mergeFork', item), offered('agentTape.discardFork', item)],
    );
    assert.deepStrictEqual(table, [
      ['session.fork.open', true, true],
      ['session.fork.open.rerun', false, true],
      ['session.fork.merged', false, false],
      ['session.fork.discarded', false, false],
      ['session.fork.open.readOnly', false, false],
    ]);
  });

  it('"Tape: Merge Fork" appends the fork\'s entries to its parent with a receipt; a second merge appends nothing', async () => {
    await store.appendMany(P, [message('m4', 'assistant', 4, 'the lexer'), event('turn/end', { turnId: 't2' })]);
    const parentHead = store.headEntryId(P);
    const receipt = (await vscode.commands.executeCommand<MergeReceipt & { alreadyMerged: boolean }>(
      'agentTape.mergeFork',
      first.forkSessionId,
    )) as MergeReceipt & { alreadyMerged: boolean };
    assert.deepStrictEqual(
      {
        mergedCount: receipt.mergedCount,
        parentMovedOn: receipt.parentMovedOn,
        parentHeadAtFork: receipt.parentHeadAtFork,
        parentHeadAtMerge: receipt.parentHeadAtMerge,
        alreadyMerged: receipt.alreadyMerged,
      },
      { mergedCount: 2, parentMovedOn: true, parentHeadAtFork: 5, parentHeadAtMerge: parentHead, alreadyMerged: false },
    );
    assert.strictEqual(store.headEntryId(P), parentHead + 3, 'two entries and the receipt');
    const merged = store.entries(P, { fromEntryId: parentHead + 1 });
    assert.deepStrictEqual(
      merged.map((e) => [e.name, e.meta.mergedFrom ?? null]),
      [
        ['message/user', { sessionId: first.forkSessionId, entryId: 3 }],
        ['message/assistant', { sessionId: first.forkSessionId, entryId: 4 }],
        ['fork/merge', null],
      ],
    );
    const again = await vscode.commands.executeCommand<MergeReceipt & { alreadyMerged: boolean }>('agentTape.mergeFork', first.forkSessionId);
    assert.strictEqual(again?.alreadyMerged, true);
    assert.strictEqual(store.headEntryId(P), parentHead + 3, 'nothing appended');
    const row = find(await api.sessionsTree.getChildren(), first.forkSessionId);
    assert.ok(row);
    assert.strictEqual(row.state, 'merged');
    assert.strictEqual(api.sessionsTree.getTreeItem(row).contextValue, 'session.fork.merged');
  });

  it('"Tape: Discard Fork…" discards nothing unless its confirmation is accepted', async () => {
    // The test workbench answers the modal without choosing Discard, as a user who cancels does.
    const head = store.headEntryId(first.forkSessionId);
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.discardFork', second.forkSessionId), undefined);
    assert.strictEqual(store.headEntryId(first.forkSessionId), head);
    assert.strictEqual(find(await api.sessionsTree.getChildren(), second.forkSessionId)?.state, 'open');
  });

  it('a merge of a discarded fork is refused with an error, and appends nothing', async () => {
    const receipt: DiscardReceipt = await new OpenTape(store).session(second.forkSessionId).discard('not needed');
    assert.strictEqual(receipt.forkSessionId, second.forkSessionId);
    const heads = store.sessions().map((s) => [s.sessionId, s.entryCount]);
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.mergeFork', second.forkSessionId), undefined);
    await agentTapeLog(`agentTape.mergeFork failed: ${JSON.stringify(second.forkSessionId)} was discarded`);
    assert.deepStrictEqual(
      store.sessions().map((s) => [s.sessionId, s.entryCount]),
      heads,
    );
    const row = find(await api.sessionsTree.getChildren(), second.forkSessionId);
    assert.strictEqual(row?.state, 'discarded');
    assert.strictEqual(api.sessionsTree.getTreeItem(row).contextValue, 'session.fork.discarded');
  });
});
