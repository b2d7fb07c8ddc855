import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { SessionSearchHit } from '../../src/tape/search/sessionSearch';
import { CC_SESSION, CODEX_SESSION, claudeCodeRecords, codexRecords, jsonl } from '../unit/ingest/fixtures';
import { tempDir } from '../unit/store/helpers';
import { agentTapeLog } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
// Sessions of their own, so what other suites import into the workspace tape is not touched.
const CLAUDE = '7d1e2f30-0000-4000-8000-00000000a11a';
const CODEX = '019a0000-1111-7222-8333-00000000a11b';
const WORD = 'quokka';

const inspectorTabs = (): vscode.Tab[] =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentTape.inspector'));

/** A fixture transcript under another session id, with one more user prompt saying `text`. */
function transcript(dir: string, name: string, records: object[], from: string, to: string, extra: object): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, jsonl([...records, extra]).replaceAll(from, to));
  return file;
}

interface Opened {
  sessionId: string;
  entryId: number;
  position: number;
  shown: SessionSearchHit[];
}

describe('Search All Sessions in a real VS Code', () => {
  let api: AgentTapeApi;
  const dir = tempDir();

  before(async () => {
    api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
    const claude = transcript(dir, `${CLAUDE}.jsonl`, claudeCodeRecords(), CC_SESSION, CLAUDE, {
      type: 'user',
      uuid: 'q1',
      parentUuid: null,
      sessionId: CC_SESSION,
      timestamp: '2026-01-02T03:05:00.000Z',
      isSidechain: false,
      message: { role: 'user', content: `Where does the ${WORD} live?` },
    });
    const rollouts = path.join(dir, '2026', '01', '02');
    fs.mkdirSync(rollouts, { recursive: true });
    const codex = transcript(rollouts, `rollout-2026-01-02T03-04-00-${CODEX}.jsonl`, codexRecords(), CODEX_SESSION, CODEX, {
      timestamp: '2026-01-02T03:05:00.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `A ${WORD} and a ${WORD} again` }] },
    });
    const imported = await vscode.commands.executeCommand<{ sessions: string[] }>('agentTape.importAgentSessions', [claude, codex]);
    assert.deepStrictEqual(
      imported?.sessions.filter((s) => !s.includes('/agent-')),
      [`claude-code:${CLAUDE}`, `codex:${CODEX}`],
    );
    // The tests read the log, which shows the Output panel: shown now, it takes no focus from a pick later.
    await agentTapeLog('imported');
  });
  after(async () => {
    await vscode.window.tabGroups.close(inspectorTabs());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is in the Command Palette and the Tape Sessions view's title bar, with the search icon", () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes as {
      commands: { command: string; title: string; category: string; icon: string }[];
      menus: Record<string, { command: string; when: string }[]>;
    };
    assert.deepStrictEqual(
      pkg.commands.find((c) => c.command === 'agentTape.searchSessions'),
      { command: 'agentTape.searchSessions', title: 'Search All Sessions…', category: 'Tape', icon: '$(search)' },
    );
    assert.ok(pkg.menus['view/title'].some((m) => m.command === 'agentTape.searchSessions' && m.when === 'view == agentTapeSessions'));
    assert.ok(!pkg.menus.commandPalette.some((m) => m.command === 'agentTape.searchSessions'), 'not hidden from the palette');
  });

  it("finds a word said in two agents' sessions, best first, and Enter opens the inspector on the hit with its entry selected", async () => {
    await vscode.window.tabGroups.close(inspectorTabs());
    const searching = vscode.commands.executeCommand<Opened | undefined>('agentTape.searchSessions', WORD);
    // The pick says in the log what it shows once the query ran; then Enter, as a user presses it.
    await agentTapeLog(`Search All Sessions: 2 shown of 2 for "${WORD}"`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const opened = await searching;
    assert.ok(opened, 'a hit was opened');
    assert.deepStrictEqual(
      opened.shown.map((h) => h.agent),
      ['codex', 'claude-code'],
      'both agents, the prompt saying it twice first',
    );
    const [first] = opened.shown;
    assert.deepStrictEqual([opened.sessionId, opened.entryId, opened.position], [first.sessionId, first.entryId, first.entryId]);
    assert.strictEqual(opened.sessionId, `codex:${CODEX}`);
    assert.deepStrictEqual(
      first.snippet.hits.map(([a, b]) => first.snippet.text.slice(a, b)),
      [WORD, WORD],
    );
    const entry = (await api.workspaceStore()).getEntry(opened.sessionId, opened.entryId);
    assert.strictEqual(entry?.payload.content, `A ${WORD} and a ${WORD} again`);
    await until("the inspector on the hit's session, named after it", () => inspectorTabs().find((t) => t.isActive && t.label === 'Tape: List files'));
    await agentTapeLog(`Search All Sessions: opening ${opened.sessionId} at entry ${opened.position}`);
  });

  it('agent: in the query keeps one agent; Escape opens nothing', async () => {
    const searching = vscode.commands.executeCommand<Opened | undefined>('agentTape.searchSessions', `agent:claude ${WORD}`);
    await agentTapeLog(`Search All Sessions: 1 shown of 1 for "agent:claude ${WORD}"`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const opened = await searching;
    assert.deepStrictEqual([opened?.sessionId, opened?.shown.map((h) => h.agent)], [`claude-code:${CLAUDE}`, ['claude-code']]);
    await until('the inspector on the Claude Code session', () => inspectorTabs().find((t) => t.isActive && t.label === 'Tape: Fix the failing test'));

    const dismissed = vscode.commands.executeCommand<Opened | undefined>('agentTape.searchSessions', `since:2030-01-01 ${WORD}`);
    await agentTapeLog(`Search All Sessions: 0 shown of 0 for "since:2030-01-01 ${WORD}"`);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.strictEqual(await dismissed, undefined);
  });
});
