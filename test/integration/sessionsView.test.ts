import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { AgentGroupNode, SessionNode } from '../../src/extension/inspector/sessionsView';
import { linkSubagent, startSubagent } from '../../src/store/subagentLinks';
import type { TapeStore } from '../../src/store/tapeStore';
import type { NewEntry } from '../../src/tape/entry';
import { addUsage, NO_USAGE, usageLine, type UsageFigures } from '../../src/tape/usage/usageFigures';
import { CC_SESSION, writeClaudeCode } from '../unit/ingest/fixtures';
import { tempDir } from '../unit/store/helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const MINE = 'sessions-view-parent';
const CLAUDE = `claude-code:${CC_SESSION}`;

const attempt = (inputTokens: number, outputTokens: number, cachedTokens: number): NewEntry => ({
  kind: 'event',
  name: 'provider/attempt',
  payload: { name: 'provider/attempt', data: { usage: { inputTokens, outputTokens, cachedTokens } } },
});

/** A session's stored attempts summed here from their payloads, apart from the code under test. */
function storedFigures(store: TapeStore, sessionId: string): UsageFigures {
  return store
    .entries(sessionId, { kind: 'event', name: 'provider/attempt' })
    .map((e) => (e.payload.data as { usage: Record<string, number | undefined> }).usage)
    .reduce(
      (sum, u) =>
        addUsage(sum, {
          requests: 1,
          inputTokens: u.inputTokens ?? 0,
          outputTokens: u.outputTokens ?? 0,
          cachedTokens: u.cachedTokens ?? 0,
          cacheCreationTokens: u.cacheCreationTokens ?? 0,
        }),
      NO_USAGE,
    );
}

describe('The Tape Sessions view in a real VS Code', () => {
  let api: AgentTapeApi;
  let store: TapeStore;
  let child: string;
  const dir = tempDir();

  before(async () => {
    api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
    store = await api.workspaceStore();
    const imported = await vscode.commands.executeCommand<{ sessions: string[] }>('agentTape.importAgentSessions', [writeClaudeCode(dir)]);
    assert.ok(imported?.sessions.includes(CLAUDE), JSON.stringify(imported));
    await store.appendMany(MINE, [attempt(1200, 40, 800), attempt(300, 25, 0)]);
    ({ childSessionId: child } = await startSubagent(store, MINE, { task: 'count the files' }));
    await store.appendMany(child, [attempt(5000, 70, 4096)]);
    await linkSubagent(store, MINE, child, 'completed');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("groups sessions by agent (two agents' sessions, two groups), newest group first, each with its session count and tokens; a parent's figures roll up its subagent's", async () => {
    const groups = await until('both agents in the view with their sessions', async () => {
      const rows = await api.sessionsTree.getChildren();
      const byAgent = new Map(rows.flatMap((r) => (r.kind === 'agent' ? [[r.agent, r] as const] : [])));
      const mine = byAgent.get('agent-tape')?.sessions.find((s) => s.sessionId === MINE);
      return mine?.children.some((c) => c.sessionId === child) && byAgent.has('claude-code') ? { rows, byAgent } : undefined;
    });
    assert.ok(
      groups.rows.every((r) => r.kind === 'agent'),
      'only agent groups at the top',
    );
    const newest = (g: AgentGroupNode) => g.sessions[0].lastCreatedAt;
    const order = (groups.rows as AgentGroupNode[]).map(newest);
    assert.deepStrictEqual(
      order,
      [...order].sort((a, b) => b - a),
      'the group with the newest session first',
    );

    const claude = groups.byAgent.get('claude-code') as AgentGroupNode;
    const ours = groups.byAgent.get('agent-tape') as AgentGroupNode;
    assert.deepStrictEqual([claude.label, ours.label], ['Claude Code', 'Agent Tape']);
    assert.ok(!claude.sessions.some((s) => s.sessionId === MINE) && !ours.sessions.some((s) => s.sessionId === CLAUDE), 'each session in its agent only');
    const claudeRoot = claude.sessions.find((s) => s.sessionId === CLAUDE);
    assert.deepStrictEqual(
      claudeRoot?.children.map((c) => [c.sessionId, c.relation]),
      [[`${CLAUDE}/agent-abc`, 'subagent']],
    );

    // Rolled up = the parent's own + the subagent's, each as its stored attempts add up.
    const check = (parent: SessionNode) => {
      const kids = parent.children.map((c) => storedFigures(store, c.sessionId));
      assert.deepStrictEqual(parent.usage.own, storedFigures(store, parent.sessionId), parent.sessionId);
      assert.deepStrictEqual(parent.usage.rolledUp, kids.reduce(addUsage, parent.usage.own), parent.sessionId);
      assert.ok(parent.usage.rolledUp.requests > parent.usage.own.requests, 'the subagent made requests');
    };
    const mine = ours.sessions.find((s) => s.sessionId === MINE) as SessionNode;
    check(mine);
    check(claudeRoot as SessionNode);
    assert.deepStrictEqual(mine.usage.rolledUp, { requests: 3, inputTokens: 6500, outputTokens: 135, cachedTokens: 4896, cacheCreationTokens: 0 });
    assert.ok((claudeRoot as SessionNode).usage.rolledUp.cacheCreationTokens > 0, "Claude Code's cache creation is counted");

    const item = api.sessionsTree.getTreeItem(mine);
    assert.strictEqual(item.contextValue, 'session', 'session rows keep their context value');
    assert.match(String(item.description), / · 3 requests · 6\.5k in · 135 out · 4\.9k cached$/);
    // appendText escapes Markdown: its text read back as shown.
    const tooltip = (item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
    assert.match(tooltip, /own: 2 requests: 1,500 input tokens \(800 cached\), 65 output tokens/);
    assert.match(tooltip, /with its 1 subagent or fork: 3 requests: 6,500 input tokens \(4,896 cached\), 135 output tokens/);

    // A group: expanded, its own context value (no session action's `viewItem` matches it), its sessions' roll-ups added up.
    for (const group of [claude, ours]) {
      const g = api.sessionsTree.getTreeItem(group);
      assert.strictEqual(g.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
      assert.strictEqual(g.contextValue, 'agentGroup');
      const total = group.sessions.map((s) => s.usage.rolledUp).reduce(addUsage, NO_USAGE);
      const count = `${group.sessions.length} ${group.sessions.length === 1 ? 'session' : 'sessions'}`;
      assert.strictEqual(g.description, `${count} · ${usageLine(total)}`);
    }
    const menus = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.menus['view/item/context'] as { when: string }[];
    for (const { when } of menus.filter((m) => m.when.includes('view == agentTapeSessions'))) {
      const equal = /viewItem == (\S+)/.exec(when);
      const regex = /viewItem =~ \/(.+)\//.exec(when);
      assert.ok(equal ? equal[1] !== 'agentGroup' : regex && !new RegExp(regex[1]).test('agentGroup'), when);
    }
    assert.deepStrictEqual(await api.sessionsTree.getChildren(claude), claude.sessions);
  });
});
