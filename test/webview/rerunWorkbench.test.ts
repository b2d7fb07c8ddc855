import * as assert from 'assert';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { answer, closeWorkbench, openChat, openWorkbench, runCommand, send, shots, visibleWebview, warmUp, type Workbench } from './workbenchDriver';

/**
 * Re-running and evaluating as a user does it in the real web workbench, with the scripted test
 * model: a tool turn through @tape in the chat, then the inspector's Requests view, its "Re-run…"
 * button, VS Code's model and variation pickers and the diff editor of the recorded and the re-run
 * answer; then an evaluation of the session from the Command Palette, reported in the inspector.
 */
describe('re-running a request and evaluating a session in the VS Code web workbench', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;

  before(async () => {
    workbench = await openWorkbench();
    ({ page } = workbench as Workbench);
    await openChat(page);
    await warmUp(page);
    await send(page, 'tool:list_dir {"path":"."}');
    await answer(page, /done: /);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-rerun-failed-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}.png`) });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);

  /** Waits for the quick pick asking `placeholder`. */
  async function asked(placeholder: string): Promise<void> {
    await page.locator(`.quick-input-widget input[placeholder="${placeholder}"]`).waitFor({ timeout: 30_000 });
  }

  /** Picks the row of the open quick pick whose label is `label`, by typing it and pressing Enter. */
  async function pick(placeholder: string, label: string): Promise<void> {
    const input = page.locator(`.quick-input-widget input[placeholder="${placeholder}"]`);
    await input.waitFor({ timeout: 30_000 });
    await input.pressSequentially(label);
    await page.locator('.quick-input-list .monaco-list-row:visible', { hasText: label }).first().waitFor();
    await page.keyboard.press('Enter');
  }

  it('"Re-run…" on the tool request: the model and the change picked in VS Code, the recorded and the re-run answer in its diff editor', async () => {
    await runCommand(page, 'Tape: Open Inspector');
    await inspector().locator('vscode-tab-header[data-view="requests"]').click();
    // The warm-up sent the first request; the tool turn's first, the second, called list_dir.
    const rows = inspector().locator('#requests-table tr[data-entry-id]');
    await rows.nth(2).waitFor({ timeout: 30_000 });
    const entryId = await rows.nth(1).getAttribute('data-entry-id');
    const button = inspector().locator(`#requests-table tr[data-entry-id="${entryId}"] vscode-button.rerun`);
    await button.focus();
    await page.keyboard.press('Enter');

    await pick('Model to send the request to', 'Fake LM');
    await pick('What to change before sending it again', 'No change');

    const tab = page.locator('.tabs-container .tab', { hasText: 'recorded ↔ re-run' });
    await tab.waitFor({ timeout: 60_000 });
    // Side by side, or inline in a narrow window: the diff editor shows both documents' lines.
    const diff = page.locator('.editor-group-container .monaco-diff-editor').first();
    await diff.locator('.view-lines', { hasText: 'Re-run:' }).first().waitFor({ timeout: 30_000 });
    const text = ((await diff.textContent()) ?? '').replace(/\u00a0/g, ' ');
    assert.match(text, /# Recorded: chat-[\w-]+ #\d+/);
    assert.match(text, /# Re-run: chat-[\w-]+ #\d+/);
    assert.match(text, /list_dir \{"path":"\."\}/, 'the tool call, the same on both sides, is shown once');
    assert.match(text, /status: recorded/);
    assert.match(text, /status: ok/);
    // The run went into a fork of the session, which the re-run's side names.
    assert.match(text, /Recorded in the fork\s*chat-[\w-]+::fork::\w+/);
    await page.screenshot({ path: path.join(shots, 'workbench-rerun-diff.png') });
  });

  it('"Tape: Evaluate Session with a Model…" from the Command Palette: the chat session, the model picked, then the report in the inspector', async () => {
    await runCommand(page, 'Tape: Evaluate Session with a Model…');
    // The current session (the chat's) comes first.
    await asked('Session to evaluate');
    await page.keyboard.press('Enter');
    await pick('Model to send the request to', 'Fake LM');
    const badges = inspector().locator('#evaluation-table tbody .badge');
    await badges.nth(2).waitFor({ timeout: 60_000 });
    // The warm-up's request, the list_dir call and the answer after it, each judged against its recording.
    assert.deepStrictEqual(await badges.allTextContents(), ['agree', 'agree', 'agree']);
    assert.match((await inspector().locator('.evaluation-summary').textContent()) ?? '', /3 requests: 3 agree, 0 diverged, 0 failed\./);
    assert.match((await inspector().locator('svg.evaluation-plot').getAttribute('aria-label')) ?? '', /^Agreement over 3 requests: 3 agree/);
    await page.screenshot({ path: path.join(shots, 'workbench-evaluation-report.png') });
  });
});
