import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { answer, closeWorkbench, openChat, openWorkbench, runCommand, send, shots, warmUp, type Workbench } from './workbenchDriver';

/** The text of every end-of-line note in the editors: VS Code draws an `after` decoration's text as CSS content. */
const notes = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('.editor-group-container .view-lines span'))
      .map((e) => getComputedStyle(e, '::after').content)
      .filter((c) => c !== 'none' && c !== 'normal' && c !== ''),
  );

/**
 * Agent blame in the web workbench, on a file @tape edited in the chat: the end-of-line note and
 * the status bar count once blame is on, the hover with its actions, then the gutter bars.
 * Screenshots: test-results/workbench-blame.png (the note and the hover) and workbench-blame-gutter.png.
 */
describe('agent blame in the VS Code web workbench', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;
  let ws: string;

  before(async () => {
    workbench = await openWorkbench({ viewport: { width: 1280, height: 800 } });
    ({ page, ws } = workbench as Workbench);
    await openChat(page);
    await warmUp(page);
    await send(page, 'tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"beta\\ngamma"}');
    const allow = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: /^Allow/ }).first();
    await allow.waitFor({ timeout: 30_000 });
    await allow.click();
    await answer(page, 'done: replaced 1 occurrence in notes.txt');
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.txt' }).click();
    await page.locator('.editor-group-container .view-lines', { hasText: 'gamma' }).waitFor({ timeout: 30_000 });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-blame-failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}.png`) });
  });
  after(() => closeWorkbench(workbench));

  it('Toggle Agent Blame: a faint note after the lines @tape wrote, their count in the status bar, and the hover with the turn and its actions', async () => {
    await runCommand(page, 'Tape: Toggle Agent Blame');
    await page.locator('.statusbar-item', { hasText: '2 agent lines' }).waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.editor-group-container .view-lines span')).some((e) =>
          /Agent Tape · turn \d+ · just now/.test(getComputedStyle(e, '::after').content),
        ),
      undefined,
      { timeout: 30_000 },
    );
    assert.strictEqual((await notes(page)).length, 1, 'one note for the run of two lines');

    await page.locator('.editor-group-container .view-line', { hasText: 'beta' }).hover();
    const hover = page.locator('.monaco-hover:visible', { hasText: 'Agent Tape blame' });
    await hover.waitFor({ timeout: 30_000 });
    const text = (await hover.textContent()) ?? '';
    for (const words of ['Agent Tape', 'turn', 'tool:apply_edit', 'Open in Inspector', 'Show the Request', 'Re-run…'])
      assert.ok(text.includes(words), `${words} in ${text}`);
    await page.screenshot({ path: path.join(shots, 'workbench-blame.png') });
  });

  it('agentTape.blame.style gutter: a bar in the gutter beside each line @tape wrote, and no note', async () => {
    await page.mouse.move(0, 799);
    fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'agentTape.blame.style': 'gutter' }));
    // A gutter icon is a margin element whose background is the bar's image.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.margin-view-overlays div, .glyph-margin-widgets div')).filter((e) =>
          getComputedStyle(e).backgroundImage.includes('data:image/svg+xml'),
        ).length === 2,
      undefined,
      { timeout: 30_000 },
    );
    assert.deepStrictEqual(await notes(page), []);
    await page.screenshot({ path: path.join(shots, 'workbench-blame-gutter.png') });
  });
});
