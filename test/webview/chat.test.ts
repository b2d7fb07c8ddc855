import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { answer, closeWorkbench, openChat, openWorkbench, responses, send, shots, visibleWebview, warmUp, type Workbench } from './workbenchDriver';

/** The visible button of a tool confirmation (it is drawn twice: in the response and above the input). */
async function confirmation(page: Page, label: RegExp): Promise<void> {
  const button = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: label }).first();
  await button.waitFor({ timeout: 30_000 });
  await button.click();
}

/**
 * About 33 KB of lines with one path among them: the tape keeps the whole read, the context sends
 * its first 16 KiB, and the summary request clips that to its first and last 2,000 characters, so
 * the test model's summary (an echo of that request) has the file's name but not the path.
 */
const NEEDLE = 'src/hidden/needle.ts';
const bigFile = (name: string): string =>
  Array.from({ length: 600 }, (_, i) =>
    i === 150 ? `see ${NEEDLE} for the rest` : `${name} line ${String(i).padStart(3, '0')}: the quick brown fox jumps over the lazy dog`,
  ).join('\n') + '\n';
const BIG_FILES = ['big1', 'big2', 'big3', 'big4'];

describe('@tape in the Chat view, as a user sees it', () => {
  describe('with the scripted test model', () => {
    let workbench: Partial<Workbench> = {};
    let page: Page;
    let ws: string;

    afterEach(async function () {
      if (this.currentTest?.state === 'failed')
        await page.screenshot({ path: path.join(shots, `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}.png`) });
    });
    before(async () => {
      workbench = await openWorkbench({
        prepare: (dir) => {
          // Automatic compaction at the lowest share of the test model's budget, so a few reads of the big files pass it.
          fs.mkdirSync(path.join(dir, '.vscode'));
          fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'agentTape.autoCompactShare': 0.3 }));
          for (const name of BIG_FILES) fs.writeFileSync(path.join(dir, `${name}.txt`), bigFile(name));
        },
      });
      ({ page, ws } = workbench as Workbench);
      await openChat(page);
      await warmUp(page);
    });
    after(() => closeWorkbench(workbench));

    it('shows tool activity, a reference to the file read, and the answer', async () => {
      await send(page, 'tool:read_file {"path":"notes.txt"}');
      await answer(page, 'done: alpha');
      // The steps and the references are collapsed ("Completed N steps", "Used N references"); a user
      // opens both. VS Code adds the time taken ("… in 1s") once a turn takes a second or more.
      const response = responses(page).last();
      await response.getByText(/^Completed \d+ steps?( in \S+)?$/).click();
      await response.getByText(/^Used \d+ references?$/).click();
      await response.locator('.chat-used-context-list', { hasText: 'notes.txt' }).waitFor({ timeout: 10_000 });
      await page.waitForTimeout(500); // the list opens with an animation
      await page.screenshot({ path: path.join(shots, 'chat-tool-activity.png') });
    });

    it('apply_edit asks first; declined, nothing is written and the model reads the refusal', async () => {
      await send(page, 'tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"gamma"}');
      await page.locator('.chat-confirmation-widget-buttons:visible').first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(shots, 'chat-edit-confirmation.png') });
      await confirmation(page, /^Skip/);
      const text = await answer(page, /done: .*declined/);
      assert.match(text, /notes\.txt was not changed/);
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'alpha\n');
      await page.screenshot({ path: path.join(shots, 'chat-edit-declined.png') });
    });
    it('apply_edit allowed: the file changes and Undo in the editor restores it', async () => {
      await send(page, 'tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"beta"}');
      await confirmation(page, /^Allow/);
      await answer(page, 'done: replaced 1 occurrence in notes.txt');
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'beta\n');
      // Undo where a user would: in the file's editor.
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.txt' }).click();
      const lines = page.locator('.editor-group-container .monaco-editor .view-lines').first();
      await lines.filter({ hasText: 'beta' }).waitFor({ timeout: 15_000 });
      await lines.click();
      await page.keyboard.press('Control+Z');
      await lines.filter({ hasText: 'alpha' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Control+S');
      for (let i = 0; i < 50 && fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8') !== 'alpha\n'; i++) await new Promise((r) => setTimeout(r, 100));
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'alpha\n');
    });

    it('/compact says what the summary kept and left out, and Review opens the inspector on that anchor in Anchors', async () => {
      await send(page, '/compact');
      // Enter may first accept the slash command from the suggestions: then the request is still in the input.
      const input = page.locator('.interactive-input-part .interactive-input-editor .view-lines').first();
      await page.waitForTimeout(1000);
      if (((await input.textContent()) ?? '').includes('/compact')) await page.keyboard.press('Enter');
      // The chat renders a reply word by word: wait for the sentence's end, not its start.
      const text = await answer(
        page,
        /compaction\/manual \(entry #\d+\); nothing was deleted\. The summary keeps .*?; (it left nothing out|.*? listed for the model after it)/,
      );
      const [, entryId, kept] = /the summary anchor compaction\/manual \(entry #(\d+)\); nothing was deleted\. The summary keeps (.*?);/.exec(text) ?? [];
      assert.ok(entryId !== undefined, text);
      // The test model's summary echoes the whole transcript it was sent, so it keeps every fact; notes.txt was read and edited.
      assert.match(kept, /^\d+ of \d+ files?(, \d+ of \d+ (commands?|errors?|requests?))*$/, text);
      for (const [, inSummary, facts] of kept.matchAll(/(\d+) of (\d+)/g)) assert.strictEqual(inSummary, facts, text);
      assert.match(text, /it left nothing out\./);
      await page.screenshot({ path: path.join(shots, 'chat-compaction-notice.png') });

      await responses(page).last().getByRole('button', { name: 'Review', exact: true }).click();
      const inspector = visibleWebview(page);
      await inspector.locator('vscode-tab-panel[data-view="anchors"]:visible').waitFor({ timeout: 30_000 });
      const anchor = inspector.locator(`.anchor[data-entry-id="${entryId}"]`);
      await anchor.filter({ hasText: 'compaction/manual' }).waitFor({ timeout: 30_000 });
      // Focused once the anchors have arrived and it is scrolled to.
      let focused = false;
      for (let i = 0; i < 50 && !focused; i++, await page.waitForTimeout(200))
        focused = await anchor.evaluate((el) => el.contains(el.ownerDocument.activeElement));
      assert.ok(focused, 'the anchor has the focus');
      await page.screenshot({ path: path.join(shots, 'chat-compaction-review.png') });
    });

    it('an automatic compaction says what its summary left out and that the model is given it, with Review', async () => {
      // Each read adds a file twice to the history (the result and the echoing answer): within a few turns the share is passed.
      let text = '';
      for (const name of BIG_FILES) {
        await send(page, `tool:read_file {"path":"${name}.txt"}`);
        text = await answer(page, `done: ${name} line 000`, 60_000);
        // The notice follows the answer: on a loaded machine the answer can be read before it is
        // shown, and the next turn would then start right after the new anchor.
        text = await answer(page, 'compaction/auto', 5_000).catch(() => text);
        if (text.includes('compaction/auto')) break;
      }
      const [, entryId, keptFiles, files, keptRequests, requests, leftOut] =
        /Compacted: the next request starts from the summary anchor compaction\/auto \(entry #(\d+)\); nothing was deleted\. The summary keeps (\d+) of (\d+) files, (\d+) of (\d+) requests?; (it left nothing out|the one it left out is listed for the model after it)\./.exec(
          text,
        ) ?? [];
      assert.ok(entryId !== undefined, `no automatic compaction after reading ${BIG_FILES.length} files: ${text}`);
      // Every request is named in the summary (the test model echoes its transcript). Whether the
      // path inside the files survives the summary request's clipping depends on where the range
      // starts; the notice must say so either way.
      assert.strictEqual(Number(keptRequests), Number(requests), text);
      const missed = Number(files) - Number(keptFiles);
      assert.ok(missed === 0 || missed === 1, text);
      assert.strictEqual(leftOut === 'it left nothing out', missed === 0, text);
      await page.screenshot({ path: path.join(shots, 'chat-auto-compaction-notice.png') });
      // After the answer, not folded away with the steps before it.
      assert.ok(text.indexOf('Compacted:') > text.indexOf(`done: `), text);
      await responses(page).last().getByRole('button', { name: 'Review', exact: true }).click();
      const inspector = visibleWebview(page);
      // The inspector was open on the manual one: it now shows the automatic one, with the path its summary missed if it missed it.
      await inspector.locator(`.anchor[data-entry-id="${entryId}"]`, missed === 1 ? { hasText: NEEDLE } : {}).waitFor({ timeout: 30_000 });
    });
  });
});
