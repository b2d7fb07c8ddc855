import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { HostToInspector, InspectorToHost, TranscriptItem } from '../../src/protocol/inspector';
import { fromHost, launchChromium, openInspectorPage, posted, root, tabTo, type StubWindow } from './inspectorPageFixture';
import { wearTheme } from './webviewThemes';

const S = 's1';
const BEFORE = 'a'.repeat(40);
const AFTER = 'b'.repeat(40);
const HOSTILE = '<img src=x onerror=alert(1)>.ts';
const LONG = 'src/a/very/deeply/nested/folder/structure/that/goes/on/and/on/with/a_file_name_that_is_long_too.component.spec.ts';

const base: Pick<TranscriptItem, 'status' | 'cut' | 'markers' | 'toolCalls'> = { status: 'sent', cut: false, markers: [], toolCalls: [] };
/**
 * A session whose second turn (from its turn/start at 6) edited files: the first turn's messages
 * come before any checkpoint, the second's prompt restores to the turn's start, its last answer
 * (which ends the turn) carries the changes and restores to the turn's end checkpoint at 13.
 */
const ITEMS: TranscriptItem[] = [
  { ...base, entryId: 3, messageId: 't1/user', role: 'user', text: 'what is here?', entryIds: [3], forkAt: 5 },
  { ...base, entryId: 4, messageId: 't1/assistant/1', role: 'assistant', text: 'Two files.', entryIds: [4], forkAt: 5 },
  { ...base, entryId: 7, messageId: 't2/user', role: 'user', text: 'fix it', entryIds: [7], forkAt: 14 },
  {
    ...base,
    entryId: 12,
    messageId: 't2/assistant/2',
    role: 'assistant',
    text: 'Done.',
    entryIds: [12],
    forkAt: 14,
    fileChanges: {
      beforeId: BEFORE,
      afterId: AFTER,
      entryId: 13,
      files: [
        { path: 'src/a.ts', change: 'modified', added: 10, removed: 4 },
        { path: HOSTILE, change: 'added', added: 2, removed: 0 },
        { path: 'logo.png', change: 'deleted', added: null, removed: null },
        { path: LONG, change: 'modified', added: 0, removed: 0 },
      ],
      filesOmitted: 0,
    },
  },
];

interface FakeWindow extends StubWindow {
  __pwned?: number;
}

/** A fake host on a writable tape: the source, then the transcript the test gives (as InspectorController sends them after `ready`). */
function fakeHost(o: { sessionId: string; transcript: unknown }): void {
  const w = window as unknown as FakeWindow & { alert: (m: string) => void };
  // The hostile path's handler calls alert: if it ever ran, the test sees it.
  w.alert = () => {
    w.__pwned = 1;
  };
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  w.host = (m: InspectorToHost) => {
    if (m.type !== 'ready') return;
    reply({
      type: 'source',
      label: 'Workspace tape',
      readOnly: false,
      headEntryId: 14,
      sessionId: o.sessionId,
      sessions: [{ sessionId: o.sessionId, title: 'fix it', entryCount: 14, lastCreatedAt: 0 }],
    });
    reply(o.transcript);
  };
}

const commands = async (page: Page) => (await posted(page)).filter((m) => m.type === 'command');
const item = (page: Page, messageId: string) => page.locator(`.transcript-item[data-message-id="${messageId}"]`);
const restoreButtons = (page: Page) =>
  page
    .locator('.transcript-item')
    .evaluateAll((els) => els.filter((e) => e.querySelector('button.restore-here') !== null).map((e) => e.getAttribute('data-message-id')));

/** Waits for the page to have posted `n` commands in all. */
const commandCount = (page: Page, n: number) =>
  page.waitForFunction((k) => (window as unknown as FakeWindow).posted.filter((m) => m.type === 'command').length === k, n);

describe('Tape Inspector webview in Chromium: workspace checkpoints', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    const transcript = {
      type: 'transcript',
      sessionId: S,
      headEntryId: 14,
      offset: 0,
      total: ITEMS.length,
      items: ITEMS,
      checkpointsFrom: 6,
    } satisfies HostToInspector;
    browser = await launchChromium();
    ({ page } = await openInspectorPage(browser, {
      host: fakeHost,
      arg: { sessionId: S, transcript },
      viewport: { width: 520, height: 700 },
      errors,
      watch: (p, errs) =>
        p.on('dialog', (d) => {
          errs.push(`dialog: ${d.message()}`);
          void d.dismiss();
        }),
    }));
    await page.waitForSelector('.transcript-item[data-message-id="t2/assistant/2"] .file-changes');
  });
  after(async () => {
    assert.deepStrictEqual(errors, []);
    await browser?.close();
  });

  it("shows the turn's changes under the message that ends it, every path as text", async () => {
    const changes = item(page, 't2/assistant/2').locator('.file-changes');
    assert.strictEqual(await changes.locator('.file-changes-summary').textContent(), '4 files changed +12 \u22124');
    assert.deepStrictEqual(await changes.locator('.file-path').allTextContents(), ['src/a.ts', HOSTILE, 'logo.png', LONG]);
    assert.deepStrictEqual(await changes.locator('.change-marker').allTextContents(), ['M', 'A', 'D', 'M']);
    assert.deepStrictEqual(await changes.locator('.file-lines').allTextContents(), ['+10 \u22124', '+2 \u22120', 'binary', '+0 \u22120']);
    assert.strictEqual(await page.locator('.transcript img').count(), 0, 'the hostile path made no element');
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
    assert.strictEqual(await page.locator('.file-changes').count(), 1, 'only the message that ends the turn has them');
    assert.strictEqual(
      await changes.locator('button.file-change').nth(1).getAttribute('aria-label'),
      `${HOSTILE}, added, 2 lines added, 0 removed: open the diff of the turn's change`,
    );
  });

  it('is readable at 520 px: nothing runs off the side, a long path wraps', async () => {
    const overflow = await page.locator('.transcript-scroll').evaluate((el) => el.scrollWidth - el.clientWidth);
    assert.ok(overflow <= 0, `the transcript scrolls sideways by ${overflow}px`);
    const longPath = item(page, 't2/assistant/2').locator('.file-path').nth(3);
    const box = await longPath.boundingBox();
    assert.ok(box !== null && box.height > 20, 'the long path takes more than one line');
    const header = await item(page, 't2/assistant/2').locator('header').boundingBox();
    assert.ok(header !== null && header.x + header.width <= 520);
    // Screenshots in a dark theme's colours, at both ends of the widths a side panel has.
    fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
    await wearTheme(page, 'dark');
    for (const width of [520, 750]) {
      await page.setViewportSize({ width, height: 700 });
      await item(page, 't2/assistant/2').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(root, 'test-results', `inspector-file-changes-${width}.png`) });
    }
    await page.setViewportSize({ width: 520, height: 700 });
  });

  it('a changed file opens its diff by keyboard: Enter or Space posts the command with the two checkpoints and the path', async () => {
    await item(page, 't2/assistant/2').focus();
    await tabTo(page, (el) => el.classList.contains('file-change') && el.textContent?.includes('src/a.ts') === true);
    await page.keyboard.press('Enter');
    await commandCount(page, 1);
    await page.keyboard.press('Tab');
    await page.keyboard.press(' ');
    await commandCount(page, 2);
    assert.deepStrictEqual(await commands(page), [
      { type: 'command', command: 'agentTape.openCheckpointDiff', args: [S, BEFORE, AFTER, 'src/a.ts'] },
      { type: 'command', command: 'agentTape.openCheckpointDiff', args: [S, BEFORE, AFTER, HOSTILE] },
    ]);
    assert.strictEqual(await page.locator('#transcript-detail .detail-entry').count(), 0, 'the buttons did not open the item');
  });

  it('Restore Files to Here: on the messages a checkpoint stands for, by keyboard, at the end of the turn on the message that ends it', async () => {
    assert.deepStrictEqual(await restoreButtons(page), ['t2/user', 't2/assistant/2']);
    await item(page, 't2/user').focus();
    await tabTo(page, (el) => el.classList.contains('restore-here'));
    assert.strictEqual(
      await page.evaluate(() => document.activeElement?.closest('[data-message-id]')?.getAttribute('data-message-id')),
      't2/user',
      'after Fork from here on the same message',
    );
    await page.keyboard.press('Enter');
    await commandCount(page, 3);
    await item(page, 't2/assistant/2').focus();
    await tabTo(page, (el) => el.classList.contains('restore-here'));
    await page.keyboard.press(' ');
    await commandCount(page, 4);
    assert.deepStrictEqual((await commands(page)).slice(2), [
      { type: 'command', command: 'agentTape.restoreFiles', args: [S, 7] },
      { type: 'command', command: 'agentTape.restoreFiles', args: [S, 13] },
    ]);
  });

  it('a read-only tape lists the files as text and offers neither diffs nor restore', async () => {
    await fromHost(page, {
      type: 'source',
      label: 'Workspace tape',
      readOnly: true,
      headEntryId: 14,
      sessionId: S,
      sessions: [{ sessionId: S, title: 'fix it', entryCount: 14, lastCreatedAt: 0 }],
    });
    await page.waitForSelector('button.restore-here', { state: 'detached' });
    assert.deepStrictEqual(
      [await page.locator('button.file-change').count(), await page.locator('span.file-change .file-path').allTextContents()],
      [0, ['src/a.ts', HOSTILE, 'logo.png', LONG]],
    );
    assert.strictEqual(await page.locator('.transcript img').count(), 0);
    await fromHost(page, {
      type: 'source',
      label: 'Workspace tape',
      readOnly: false,
      headEntryId: 14,
      sessionId: S,
      sessions: [{ sessionId: S, title: 'fix it', entryCount: 14, lastCreatedAt: 0 }],
    });
    await page.waitForSelector('button.restore-here');
    assert.deepStrictEqual(await restoreButtons(page), ['t2/user', 't2/assistant/2']);
    assert.strictEqual(await page.locator('button.file-change').count(), 4);
  });

  it("as the turn is appended: Restore appears with the session's first checkpoint, the changes with the turn's end", async () => {
    const plain = (i: TranscriptItem): TranscriptItem => ({ ...i, fileChanges: undefined });
    await fromHost(page, { type: 'transcript', sessionId: S, headEntryId: 5, offset: 0, total: 2, items: ITEMS.slice(0, 2) });
    await page.waitForSelector('.transcript-item[data-message-id="t2/user"]', { state: 'detached' });
    assert.deepStrictEqual(await restoreButtons(page), []);
    await fromHost(page, { type: 'appended', sessionId: S, headEntryId: 12, rows: [], transcript: [ITEMS[2], plain(ITEMS[3])], checkpointsFrom: 6 });
    await page.waitForSelector('.transcript-item[data-message-id="t2/assistant/2"]');
    assert.deepStrictEqual(await restoreButtons(page), ['t2/user', 't2/assistant/2']);
    assert.strictEqual(await page.locator('.file-changes').count(), 0);
    await fromHost(page, { type: 'appended', sessionId: S, headEntryId: 14, rows: [], transcript: [ITEMS[3]], checkpointsFrom: 6 });
    await page.waitForSelector('.file-changes');
    assert.strictEqual(await item(page, 't2/assistant/2').locator('.file-changes-summary').textContent(), '4 files changed +12 \u22124');
    await item(page, 't2/assistant/2').locator('button.restore-here').click();
    await commandCount(page, 5);
    assert.deepStrictEqual((await commands(page)).at(-1), { type: 'command', command: 'agentTape.restoreFiles', args: [S, 13] });
  });
});
