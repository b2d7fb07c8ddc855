import * as assert from 'assert';
import type { Browser, Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { fromHost, launchChromium, openInspectorPage, type StubWindow } from './inspectorPageFixture';

const PARENT = 'p';
const CHILD = 'p::subagent::ab12';

/** A fake host of two sessions that answers `ready` and `selectSession` with the source and an empty transcript. */
function fakeHost(ids: { parent: string; child: string }): void {
  const w = window as unknown as StubWindow;
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const announce = (sessionId: string) => {
    reply({
      type: 'source',
      label: 'Workspace tape',
      readOnly: false,
      headEntryId: 3,
      sessionId,
      sessions: [
        { sessionId: ids.parent, title: 'plan the parser', entryCount: 3, lastCreatedAt: 1 },
        { sessionId: ids.child, title: 'read the notes', entryCount: 3, lastCreatedAt: 0 },
      ],
    });
    reply({ type: 'transcript', sessionId, headEntryId: 3, offset: 0, total: 0, items: [] });
  };
  w.host = (m: InspectorToHost) => {
    if (m.type === 'ready') announce(ids.parent);
    if (m.type === 'selectSession') announce(m.sessionId);
  };
}

const figures = (requests: number, inputTokens: number, outputTokens: number, cachedTokens = 0, cacheCreationTokens = 0) => ({
  requests,
  inputTokens,
  outputTokens,
  cachedTokens,
  cacheCreationTokens,
});
const usageText = (page: Page) => page.locator('.inspector-header .session-usage');

describe('Tape Inspector webview in Chromium: requests and tokens in the header', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    ({ page } = await openInspectorPage(browser, { host: fakeHost, arg: { parent: PARENT, child: CHILD }, viewport: { width: 1000, height: 640 }, errors }));
    await page.waitForSelector('.source-label:has-text("Workspace tape")');
  });
  after(async () => {
    assert.deepStrictEqual(errors, []);
    await browser?.close();
  });

  it("shows the session's own figures, then with its subagents and forks once they differ, the exact ones in its title", async () => {
    assert.strictEqual(await usageText(page).isVisible(), false, 'nothing before the host says');
    const own = figures(2, 1600, 80, 512);
    await fromHost(page, { type: 'usage', sessionId: PARENT, own, rolledUp: own, descendants: 0 });
    await page.waitForFunction(() => document.querySelector('.session-usage')?.textContent === '2 requests · 1.6k in · 80 out · 512 cached');
    assert.strictEqual(await usageText(page).getAttribute('title'), '2 requests: 1,600 input tokens (512 cached), 80 output tokens');

    await fromHost(page, { type: 'usage', sessionId: PARENT, own, rolledUp: figures(3, 1_234_567, 95, 512, 4000), descendants: 1 });
    await page.waitForFunction(() => document.querySelector('.session-usage')?.textContent?.includes('with subagents and forks'));
    assert.strictEqual(
      await usageText(page).textContent(),
      '2 requests · 1.6k in · 80 out · 512 cached; with subagents and forks: 3 requests · 1.2M in · 95 out · 512 cached · 4k cache write',
    );
    assert.strictEqual(
      await usageText(page).getAttribute('title'),
      'This session: 2 requests: 1,600 input tokens (512 cached), 80 output tokens\n' +
        'With its 1 subagent or fork: 3 requests: 1,234,567 input tokens (512 cached, 4,000 written to the cache), 95 output tokens',
    );
    // Theme colours only: the description foreground the page's theme gives.
    const colour = await usageText(page).evaluate((e) => getComputedStyle(e).color);
    const themed = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--vscode-descriptionForeground)';
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    assert.strictEqual(colour, themed);
  });

  it("ignores another session's figures, hides them on switching, and refuses a malformed usage message", async () => {
    await fromHost(page, { type: 'usage', sessionId: CHILD, own: figures(9, 9, 9), rolledUp: figures(9, 9, 9), descendants: 0 });
    await page.waitForTimeout(100);
    assert.match((await usageText(page).textContent()) ?? '', /^2 requests/);

    await page.locator('#session-picker').evaluate((el, id) => {
      (el as HTMLElement & { value: string }).value = id;
      el.dispatchEvent(new Event('change'));
    }, CHILD);
    await page.waitForFunction((id) => (document.querySelector('#session-picker') as HTMLElement & { value: string }).value === id, CHILD);
    await usageText(page).waitFor({ state: 'hidden' });
    await fromHost(page, { type: 'usage', sessionId: CHILD, own: figures(1, 40, 4), rolledUp: figures(1, 40, 4), descendants: 0 });
    await page.waitForFunction(() => document.querySelector('.session-usage')?.textContent === '1 request · 40 in · 4 out');

    await fromHost(page, { type: 'usage', sessionId: CHILD, own: figures(-1, 40, 4), rolledUp: figures(1, 40, 4), descendants: 0 });
    await page.waitForSelector('.banner:visible:has-text("Unexpected message from the extension")');
    assert.strictEqual(await usageText(page).textContent(), '1 request · 40 in · 4 out', 'a refused message changes nothing');
  });
});
