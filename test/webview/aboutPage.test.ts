import * as assert from 'assert';
import type { Browser, Page } from 'playwright-core';
import { fromHost, launchChromium, openInspectorPage, posted } from './inspectorPageFixture';

/** The real webview page (same HTML shell, CSP and bundle as in VS Code) with a stand-in host API. */
const openPage = async (browser: Browser): Promise<Page> => (await openInspectorPage(browser, { bundle: 'webview' })).page;

/** The host's answer to the page's first request (its `about`). */
const about = (result: unknown) => ({ type: 'reply', id: 1, ok: true, result });

describe('webview page in Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium(['dist/webview.js']);
  });
  after(() => browser?.close());

  it('asks the host what it runs on with a typed `about` request', async () => {
    const page = await openPage(browser);
    await page.waitForFunction(() => (window as unknown as { posted: unknown[] }).posted.length > 0);
    assert.deepStrictEqual(await posted(page), [{ type: 'request', id: 1, method: 'about', params: {} }]);
  });

  it('SPEC 3.20: text containing HTML or script is shown as text, never run', async () => {
    const page = await openPage(browser);
    const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
    await fromHost(page, about({ extension: evil, sqlite: '3.49.1', vscode: '1.139.1' }));
    await page.waitForSelector('dd');
    assert.strictEqual(await page.locator('dd').first().textContent(), evil);
    assert.strictEqual(await page.locator('img, main script').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  });

  it('refuses a malformed host message with a visible error', async () => {
    const page = await openPage(browser);
    await fromHost(page, { type: 'about', extension: 42 });
    await page.waitForSelector('.error');
    assert.match((await page.locator('.error').textContent()) ?? '', /Unexpected message from the extension/);
  });

  it("refuses a malformed answer, and shows the host's error answer, as visible errors", async () => {
    const page = await openPage(browser);
    await fromHost(page, about({ extension: 42 }));
    await page.waitForSelector('.error');
    assert.match((await page.locator('.error').textContent()) ?? '', /^unexpected reply to about from the extension: ✖ [^\n]*\n\s*→ at extension\n/);
    const failing = await openPage(browser);
    await fromHost(failing, { type: 'reply', id: 1, ok: false, error: 'sql.js <b>failed</b> to load' });
    await failing.waitForSelector('.error');
    assert.strictEqual(await failing.locator('.error').textContent(), 'sql.js <b>failed</b> to load');
  });

  it('its button asks the host to run "Show Version" by keyboard too', async () => {
    const page = await openPage(browser);
    await fromHost(page, about({ extension: '0.1.0', sqlite: '3.49.1', vscode: '1.139.1' }));
    await page.locator('button').focus();
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await posted(page)).at(-1), { type: 'runCommand', command: 'agentTape.showVersion' });
  });

  it('its CSP blocks inline script that lacks the nonce', async () => {
    const page = await openPage(browser);
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.append(s);
    });
    assert.strictEqual(await page.evaluate(() => (window as unknown as { inlineRan?: boolean }).inlineRan), undefined);
  });
});
