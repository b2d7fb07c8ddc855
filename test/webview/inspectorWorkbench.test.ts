import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { closeWorkbench, openTapeFromExplorer, openWorkbench, root, runCommand, shots, useTheme, visibleWebview, type Workbench } from './workbenchDriver';

const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');
const CLI = path.join(root, 'dist/cli.js');
const FIRST_QUESTION = 'Read notes.md and tell me what it says <script>alert(1)</script>';
const VIEWS = ['transcript', 'entries', 'anchors', 'requests', 'projections'] as const;

function agentTape(args: string[], input?: string): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `agent-tape ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The Tape Inspector in the real web workbench: tape files opened from the Explorer (the custom
 * editor), a live tape the CLI appends to, and the inspector panel driven by keyboard alone.
 */
describe('the Tape Inspector in the VS Code web workbench', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;
  let ws: string;

  before(async () => {
    workbench = await openWorkbench({
      testModel: false,
      prepare: (dir) => {
        fs.copyFileSync(SAMPLE, path.join(dir, 'sample.tape.jsonl'));
        // The SQLite tape is made the way a user would: with the CLI, from the JSONL one.
        agentTape(['import', path.join(dir, 'sample.tape.jsonl'), path.join(dir, 'live.tape.sqlite')]);
      },
    });
    ({ page, ws } = workbench as Workbench);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-inspector-failed-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}.png`) });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);
  const transcriptItem = (text: string) => inspector().locator('.transcript-item', { hasText: text });

  /** Moves the keyboard focus with Tab until the inspector page's focused element is (inside) `selector`. */
  async function tabTo(selector: string): Promise<void> {
    for (let i = 0; i < 40; i++) {
      const hit = await inspector()
        .locator('body')
        .evaluate((_b, sel) => document.activeElement?.closest(sel) != null, selector);
      if (hit) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  it('opens a .tape.jsonl clicked in the Explorer: its transcript (markup as text), entry count and anchors', async () => {
    await openTapeFromExplorer(page, 'sample.tape.jsonl');
    await transcriptItem(FIRST_QUESTION).waitFor({ timeout: 60_000 });
    assert.strictEqual(await inspector().locator('.transcript script, .transcript img').count(), 0, 'tape text is never markup');
    await inspector().locator('vscode-option', { hasText: '(25 entries)' }).waitFor({ state: 'attached' });
    await inspector().locator('.marker-read-only:visible').waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-jsonl-transcript.png') });
    await inspector().locator('vscode-tab-header[data-view="anchors"]').click();
    await inspector().locator('.anchor-name', { hasText: 'handoff/notes-read' }).waitFor();
    await inspector().locator('.anchor-name', { hasText: 'session/start' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-jsonl-anchors.png') });
    // The fixture's two requests (entries 5 and 19): the second starts from the handoff anchor (14).
    await inspector().locator('vscode-tab-header[data-view="requests"]').click();
    const diff = inspector().locator('.diff');
    await diff.waitFor();
    const cells = async (table: string) =>
      await diff.locator(`table.${table} tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    assert.strictEqual(await diff.locator('h3').textContent(), 'Request #5 → #19');
    assert.deepStrictEqual(
      (await cells('diff-added')).map((r) => [r[0], r[3]]),
      [
        ['none', '45'],
        ['#18', '11'],
      ],
      'added: the checkpoint and entry 18',
    );
    assert.deepStrictEqual(
      (await cells('diff-removed')).map((r) => [r[0], r[4]]),
      [['#4', '20']],
      'removed: entry 4',
    );
    assert.strictEqual(await diff.locator('[data-delta="estimatedPrompt"]').textContent(), '1,700 → 1,736 (+36)');
    assert.strictEqual(await diff.locator('.unchanged-prefix').textContent(), 'Unchanged prefix: 1 items, 274 tokens a prompt cache can reuse');
    assert.ok(((await diff.locator('.changes').textContent()) ?? '').includes('Anchor: none → #14'));
  });

  it('opens a .tape.sqlite from the Explorer and shows what the CLI appends to it, without reopening', async () => {
    const file = path.join(ws, 'live.tape.sqlite');
    await openTapeFromExplorer(page, 'live.tape.sqlite');
    await transcriptItem(FIRST_QUESTION).waitFor({ timeout: 60_000 });
    await inspector().locator('vscode-option', { hasText: '(25 entries)' }).waitFor({ state: 'attached' });
    const appended = 'Appended by the CLI while the inspector is open';
    const out = agentTape(
      ['append', file, '--session', 'inspector-sample'],
      [
        { kind: 'message', name: 'message/user', payload: { messageId: 'live-1', role: 'user', status: 'sent', orderSeq: 100, content: appended } },
        {
          kind: 'message',
          name: 'message/assistant',
          payload: { messageId: 'live-2', role: 'assistant', status: 'sent', orderSeq: 101, content: 'And this answer too.' },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    assert.deepStrictEqual(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).entryId),
      [26, 27],
    );
    await transcriptItem(appended).waitFor({ timeout: 30_000 });
    await transcriptItem('And this answer too.').waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-sqlite-live.png') });
  });

  it('keyboard only: imports a tape, opens the inspector from the Command Palette, switches views, reads an entry', async () => {
    await page.keyboard.press('Control+K');
    await page.keyboard.press('W'); // View: Close All Editors (Ctrl+K W)
    await runCommand(page, 'Tape: Import Tape File…');
    // The web workbench asks for the file in its own quick input: type the path.
    const input = page.locator('.quick-input-widget input[aria-label*="Import Tape File"]');
    await input.waitFor();
    // The dialog fills in the folder after it shows; typing before that is overwritten.
    await page.waitForFunction(
      (sel) => ((document.querySelector(sel) as HTMLInputElement | null)?.value ?? '') !== '',
      '.quick-input-widget input[aria-label*="Import Tape File"]',
    );
    // The path goes in whole, as a paste would: typed key by key on a loaded machine, the dialog
    // lists each partial path's folder as it goes and can take a half-typed one (seen twice in CI).
    // It may also still be listing the path's folder when Enter comes, and not take it: then the
    // path is given again.
    const file = path.join(ws, 'sample.tape.jsonl');
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+A');
      await input.fill(file);
      await page.keyboard.press('Enter');
      const closed = await input.waitFor({ state: 'hidden', timeout: 10_000 }).then(
        () => true,
        () => false,
      );
      if (closed) break;
      if (attempt === 3) assert.fail(`the file dialog did not take ${file} (it shows ${JSON.stringify(await input.inputValue())})`);
    }

    await runCommand(page, 'Tape: Open Inspector');
    await transcriptItem(FIRST_QUESTION).waitFor({ timeout: 60_000 });
    assert.match((await page.locator('.tabs-container .tab.active').textContent()) ?? '', /Tape: Read notes\.md/, 'the tab is titled after the session');

    // Into the page, to the view tabs: the arrow keys move between them, Enter shows one.
    await tabTo('vscode-tab-header');
    for (const key of ['ArrowRight', 'ArrowRight', 'Enter']) await page.keyboard.press(key);
    await inspector().locator('.anchor-name', { hasText: 'handoff/notes-read' }).waitFor();
    for (const key of ['ArrowLeft', 'Enter']) await page.keyboard.press(key);
    await inspector().locator('vscode-tab-panel[data-view="entries"]:visible').waitFor();

    // Entries: into the list, a row down, Enter shows that entry as stored.
    await tabTo('vscode-tab-panel[data-view="entries"] [role="listbox"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const detail = inspector().locator('#entry-detail .detail-entry pre.json:not([aria-busy])').first();
    await detail.waitFor();
    const shown = JSON.parse((await detail.textContent()) ?? '') as { sessionId: string; entryId: number };
    assert.strictEqual(shown.sessionId, 'inspector-sample');
    assert.ok(shown.entryId >= 1 && shown.entryId <= 25, `entry ${shown.entryId}`);
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-entry-detail.png') });
  });

  it('each view in the dark and the light theme (screenshots)', async () => {
    for (const [theme, kind] of [
      ['Dark Modern', 'vs-dark'],
      ['Light Modern', 'vs'],
    ] as const) {
      await useTheme(page, theme, kind);
      for (const view of VIEWS) {
        await inspector().locator(`vscode-tab-header[data-view="${view}"]`).click();
        await inspector().locator(`vscode-tab-panel[data-view="${view}"]:visible`).waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(shots, `workbench-inspector-${view}-${kind === 'vs' ? 'light' : 'dark'}.png`) });
      }
    }
  });
});
