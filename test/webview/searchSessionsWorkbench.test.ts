import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { CC_SESSION, CODEX_SESSION, claudeCodeRecords, codexRecords, jsonl } from '../unit/ingest/fixtures';
import { closeWorkbench, openWorkbench, root, runCommand, shots, visibleWebview, type Workbench } from './workbenchDriver';

const CLI = path.join(root, 'dist/cli.js');
const WORD = 'wallaby';

function agentTape(args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `agent-tape ${args.join(' ')}: ${r.stderr}`);
}

/**
 * A tape file with a Claude Code and a Codex session that both say WORD, made as a user would with
 * the CLI (ingest, then export), to import into the workspace tape.
 */
function twoAgentsTape(ws: string): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-search-'));
  const claude = path.join(dir, `${CC_SESSION}.jsonl`);
  const prompt = { type: 'user', uuid: 'w1', parentUuid: null, sessionId: CC_SESSION, timestamp: '2026-01-02T03:05:00.000Z', isSidechain: false };
  fs.writeFileSync(claude, jsonl([...claudeCodeRecords(), { ...prompt, message: { role: 'user', content: `Is a ${WORD} a kangaroo?` } }]));
  const day = path.join(dir, '2026', '01', '02');
  fs.mkdirSync(day, { recursive: true });
  const codex = path.join(day, `rollout-2026-01-02T03-04-00-${CODEX_SESSION}.jsonl`);
  const said = { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Three times: ${WORD}, ${WORD} and ${WORD}` }] };
  fs.writeFileSync(codex, jsonl([...codexRecords(), { timestamp: '2026-01-02T03:05:00.000Z', type: 'response_item', payload: said }]));
  const sqlite = path.join(dir, 'agents.tape.sqlite');
  agentTape(['ingest', claude, codex, sqlite]);
  agentTape(['export', sqlite, path.join(ws, 'agents.tape.jsonl')]);
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Search All Sessions in the web workbench, by keyboard: the query typed into the real QuickPick
 * finds both agents' sessions, Enter opens the inspector with the hit's entry selected in Entries.
 */
describe('Search All Sessions in the VS Code web workbench', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;
  let ws: string;

  before(async () => {
    workbench = await openWorkbench({ testModel: false, prepare: twoAgentsTape });
    ({ page, ws } = workbench as Workbench);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, 'workbench-search-failed.png') });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);

  async function importTapeFile(file: string): Promise<void> {
    await runCommand(page, 'Tape: Import Tape File…');
    const input = page.locator('.quick-input-widget input[aria-label*="Import Tape File"]');
    await input.waitFor();
    // The dialog fills in its folder after it shows (typing before that is overwritten), and may
    // still be listing it when Enter comes: then the path is given again (as inspectorWorkbench does).
    await page.waitForFunction(
      (sel) => ((document.querySelector(sel) as HTMLInputElement | null)?.value ?? '') !== '',
      '.quick-input-widget input[aria-label*="Import Tape File"]',
    );
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+A');
      await input.fill(file);
      await page.keyboard.press('Enter');
      if (
        await input.waitFor({ state: 'hidden', timeout: 10_000 }).then(
          () => true,
          () => false,
        )
      )
        return;
      if (attempt === 3) assert.fail(`the file dialog did not take ${file}`);
    }
  }

  before(async () => {
    await importTapeFile(path.join(ws, 'agents.tape.jsonl'));
    // The import runs after the dialog closes: searched before it ends, the tape would not have the
    // sessions yet. The Tape Sessions view shows them, grouped by agent, once it has.
    const sessionsView = page.locator('.pane-header', { hasText: 'Tape Sessions' });
    if ((await sessionsView.getAttribute('aria-expanded')) !== 'true') await sessionsView.click();
    await page.locator('.pane-body .monaco-list-row', { hasText: 'Codex' }).first().waitFor({ timeout: 30_000 });
  });

  it('types a word into the QuickPick, sees hits of Codex and Claude Code best first, and Enter shows the entry in the inspector', async () => {
    await runCommand(page, 'Tape: Search All Sessions…');
    const input = page.locator('.quick-input-widget input[placeholder*="Words to find in every session"]');
    await input.waitFor();
    await page.keyboard.type(WORD);
    const rows = page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'Claude Code' }).first().waitFor({ timeout: 30_000 });
    await rows.filter({ hasText: 'Codex' }).first().waitFor();
    // The list is searched as the word is typed: hits of an earlier prefix ("wall" finds "Wall
    // time") stand until the whole word's come, so wait for every row to hold the word.
    let shown: string[] = [];
    for (let i = 0; i < 100; i++, await page.waitForTimeout(100)) {
      shown = await rows.evaluateAll((els) => els.map((e) => e.textContent ?? ''));
      if (shown.length > 0 && shown.every((t) => t.toLowerCase().includes(WORD))) break;
    }
    assert.strictEqual(shown.length, 2, shown.join('\n'));
    // Sorted by label, as VS Code sorts the items that match what is typed, "Is a …" would come first.
    assert.match(shown[0], new RegExp(`Three times: ${WORD}, ${WORD} and ${WORD}.*Codex · List files`), 'the prompt saying it three times first');
    assert.match(shown[0], /message\/user #\d+/);
    assert.match(shown[1], /Claude Code · Fix the failing test/);
    assert.match((await page.locator('.quick-input-title').textContent()) ?? '', /2 matches/);
    await page.screenshot({ path: path.join(shots, 'workbench-search-sessions.png') });
    const entryId = Number(/#(\d+)/.exec(shown[0])?.[1]);

    await page.keyboard.press('Enter');
    const selected = inspector().locator('vscode-tab-panel[data-view="entries"] [role="option"][aria-selected="true"]');
    await selected.waitFor({ timeout: 60_000 });
    assert.strictEqual(await selected.getAttribute('data-entry-id'), String(entryId));
    assert.match((await selected.textContent()) ?? '', new RegExp(`#${entryId}.*message/user.*Three times: ${WORD}`));
    assert.match((await page.locator('.tabs-container .tab.active').textContent()) ?? '', /Tape: List files/, "the inspector on the hit's session");
    await page.screenshot({ path: path.join(shots, 'workbench-search-sessions-entry.png') });
  });

  it('the title bar buttons filter by agent (a second pick of the agents on the tape) and by date range, and come back to the search', async () => {
    await page.locator('.explorer-folders-view').click();
    await runCommand(page, 'Tape: Search All Sessions…');
    await page.locator('.quick-input-widget input[placeholder*="Words to find in every session"]').waitFor();
    await page.keyboard.type(WORD);
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const title = page.locator('.quick-input-title');
    await title.filter({ hasText: '2 matches' }).waitFor({ timeout: 30_000 });

    await page.locator('.quick-input-titlebar .action-label[aria-label="Filter by Agent…"]').click();
    await page.locator('.quick-input-title', { hasText: 'Search All Sessions: agents' }).waitFor();
    const codex = rows.filter({ hasText: 'Codex' });
    await codex.waitFor();
    const agents = await rows.evaluateAll((els) =>
      els.map((e) => `${e.querySelector('.label-name')?.textContent ?? ''}: ${e.querySelector('.label-description')?.textContent ?? ''}`),
    );
    assert.deepStrictEqual(agents.sort(), ['Claude Code: 1 session', 'Codex: 1 session'], 'the agents on the tape, with their sessions');
    await codex.locator('.label-name').first().click();
    await page.locator('.quick-input-count', { hasText: '1 Selected' }).waitFor();
    await page.locator('.quick-input-action .monaco-button', { hasText: 'OK' }).click();
    await title.filter({ hasText: /1 match · Codex/ }).waitFor({ timeout: 30_000 });
    assert.strictEqual(await rows.count(), 1);
    assert.match((await rows.first().textContent()) ?? '', /Codex · List files/);

    await page.locator('.quick-input-titlebar .action-label[aria-label="Filter by Date…"]').click();
    await rows.filter({ hasText: 'Today' }).waitFor();
    await rows.filter({ hasText: 'Today' }).click();
    // The sessions are from January 2026.
    await title.filter({ hasText: /no matches · Codex · Today/ }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'workbench-search-sessions-filters.png') });
    await page.keyboard.press('Escape');
  });
});
