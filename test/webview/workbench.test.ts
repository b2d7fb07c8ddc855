import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startServer, workbenchUrl, type RunningServer } from '../support/vscodeServer';
import { root, runCommand, shots } from './workbenchDriver';

/** What `npm start` serves: the demo workspace with the extension loaded from this checkout. */
describe('the extension in the VS Code web workbench (as `npm start` serves it)', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(workbenchUrl(server, { folder: path.join(root, 'demo'), extensionDevelopmentPath: root }));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    fs.mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('"Tape: Show Version" from the Command Palette shows the SQLite version', async () => {
    await runCommand(page, 'Tape: Show Version');
    // Toasts are not drawn in this headless workbench; the notification centre lists the same item.
    await runCommand(page, 'Notifications: Show Notifications');
    const item = page.locator('.notification-list-item-message', { hasText: 'SQLite' });
    await item.waitFor({ timeout: 30_000 });
    assert.match((await item.textContent()) ?? '', /^Agent Tape \d+\.\d+\.\d+ · SQLite 3\.\d+\.\d+ \(sql\.js\)$/);
    await page.screenshot({ path: path.join(shots, 'show-version.png') });
    await page.keyboard.press('Escape');
  });

  it('"Tape: About Agent Tape" opens a themed webview with the same versions', async () => {
    await runCommand(page, 'Tape: About Agent Tape');
    const frame = page.frameLocator('iframe.webview').first().frameLocator('iframe#active-frame');
    const dd = frame.locator('dd').nth(1);
    await dd.waitFor({ timeout: 30_000 });
    assert.match((await dd.textContent()) ?? '', /^3\.\d+\.\d+$/);
    const theme = await frame.locator('body').evaluate((b) => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--vscode-foreground)';
      b.append(probe);
      const expected = getComputedStyle(probe).color;
      probe.remove();
      return {
        defined: getComputedStyle(document.documentElement).getPropertyValue('--vscode-foreground').trim() !== '',
        body: getComputedStyle(b).color,
        expected,
      };
    });
    assert.ok(theme.defined, 'VS Code injects its theme variables');
    assert.strictEqual(theme.body, theme.expected, 'the page takes its text colour from the theme');
    await page.screenshot({ path: path.join(shots, 'about-webview.png') });
  });
});
