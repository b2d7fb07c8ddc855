import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { closeWorkbench, openTapeFromExplorer, openWorkbench, root, runCommand, shots, visibleWebview, type Workbench } from './workbenchDriver';

const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');

/**
 * A step replay as a user runs it: a tape file opened from the Explorer, Replay in its inspector,
 * three steps from the debug toolbar, the Variables view, and the inspector following the cursor.
 */
describe('step replay in the VS Code web workbench', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;

  before(async () => {
    workbench = await openWorkbench({ testModel: false, prepare: (ws) => fs.copyFileSync(SAMPLE, path.join(ws, 'sample.tape.jsonl')) });
    ({ page } = workbench as Workbench);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, 'workbench-replay-failed.png') });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);

  it('Replay from a tape file’s inspector stops on entry, steps three times, shows variables, and the inspector follows', async () => {
    await openTapeFromExplorer(page, 'sample.tape.jsonl');
    await inspector().locator('.transcript-item').first().waitFor({ timeout: 60_000 });
    await inspector().locator('vscode-tab-header[data-view="entries"]').click();
    await inspector().locator('.vlist-row').first().waitFor();

    await inspector().locator('.inspector-header vscode-button', { hasText: 'Replay' }).click();
    const stepOver = page.locator('.debug-toolbar .action-label.codicon-debug-step-over');
    await stepOver.waitFor({ timeout: 60_000 });
    // Stopped on entry 1: the inspector selects it.
    await inspector().locator('.vlist-row[data-index="0"][aria-selected="true"]').waitFor({ timeout: 30_000 });
    for (let n = 2; n <= 4; n++) {
      await stepOver.click();
      await inspector()
        .locator(`.vlist-row[data-index="${n - 1}"][aria-selected="true"]`)
        .waitFor({ timeout: 30_000 });
    }
    assert.strictEqual(await inspector().locator('.vlist-row[aria-selected="true"]').count(), 1);
    // The Variables view shows the replay's scopes for the entry at the cursor.
    await runCommand(page, 'View: Show Run and Debug');
    const variables = page.locator('.debug-variables .monaco-list-row');
    await variables.filter({ hasText: 'Entry' }).first().waitFor({ timeout: 30_000 });
    await variables.filter({ hasText: 'View' }).first().waitFor();
    // The call stack names the session and the line of the replay document is entry 4.
    await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'inspector-sample' }).first().waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-replay-stepped.png') });
    await page.keyboard.press('Shift+F5');
    await stepOver.waitFor({ state: 'hidden', timeout: 30_000 });
  });
});
