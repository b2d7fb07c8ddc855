// Drives the real VS Code web workbench as a user does (windows, the Command Palette, the Chat
// view), for the Chromium suites.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startServer, workbenchUrl, type RunningServer } from '../support/vscodeServer';

export const root = path.resolve(__dirname, '../../..');
export const shots = path.join(root, 'test-results');
export const FAKE_LM = path.join(root, 'test/fixtures/fake-lm');

/** A scratch copy of the demo workspace: these tests edit files. */
export function scratchWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-chat-ws-'));
  fs.cpSync(path.join(root, 'demo'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'alpha\n');
  return dir;
}

/**
 * A workbench window (a browser page) on `ws`, with Agent Tape as the development extension. In a
 * context given, windows share the browser storage where the web workbench keeps extension state.
 */
export async function openWindow(browser: Browser | BrowserContext, server: RunningServer, ws: string, viewport = { width: 1400, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(workbenchUrl(server, { folder: ws, extensionDevelopmentPath: root }));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  fs.mkdirSync(shots, { recursive: true });
  return page;
}

export interface Workbench {
  server: RunningServer;
  browser: Browser;
  page: Page;
  ws: string;
}

/**
 * The workbench as a user sees it on a scratch workspace: `prepare` puts files there first, and
 * `testModel` installs the deterministic test model (the chat needs it; tape files do not).
 */
export async function openWorkbench(
  options: { prepare?: (ws: string) => void; testModel?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<Workbench> {
  const ws = scratchWorkspace();
  options.prepare?.(ws);
  const server = await startServer(options.testModel === false ? {} : { extensionFolders: [FAKE_LM] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await openWindow(browser, server, ws, options.viewport);
  return { server, browser, page, ws };
}

/** Closes what openWorkbench opened, as far as it got, and removes the scratch workspace. */
export async function closeWorkbench(w: Partial<Workbench>): Promise<void> {
  await w.browser?.close();
  await w.server?.stop();
  if (w.ws) fs.rmSync(w.ws, { recursive: true, force: true });
}

/**
 * Types a request to @tape into the chat input as a user does (the input is a Monaco editor: click
 * it, then type). A sticky participant leaves `@tape ` in the input after each request; typed
 * before the participant list has loaded, `@tape` would go to the default chat instead.
 */
export async function send(page: Page, text: string): Promise<void> {
  const input = page.locator('.interactive-input-part .interactive-input-editor').first();
  await input.waitFor({ timeout: 30_000 });
  await input.click();
  const current = ((await input.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
  if (!current.startsWith('@tape')) {
    await page.keyboard.type('@tape', { delay: 50 });
    await page.waitForTimeout(300);
    await page.keyboard.type(' ');
  }
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

export const responses = (page: Page) => page.locator('.interactive-item-container.interactive-response');

/** Waits for the newest response to contain `text` and returns its text. */
export async function answer(page: Page, text: string | RegExp, timeout = 30_000): Promise<string> {
  const response = responses(page).last();
  await response.filter({ hasText: text }).waitFor({ timeout });
  return (await response.textContent()) ?? '';
}

export async function openChat(page: Page): Promise<void> {
  await page.keyboard.press('Control+Alt+KeyI');
  await page.locator('.interactive-input-part').first().waitFor({ timeout: 30_000 });
}

/**
 * Sends `text` until the newest response contains `expected`: the first request of a fresh profile
 * can fail ("Language model unavailable") while the model picker has not chosen a model yet.
 */
export async function sendUntil(page: Page, text: string, expected: string | RegExp, attempts = 3): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await send(page, text);
    try {
      return await answer(page, expected, 15_000);
    } catch (e) {
      if (attempt === attempts) throw e;
      await closeDialog(page);
    }
  }
}

/**
 * Closes a modal dialog as a user would (Escape). A request sent before the model picker has chosen
 * a model can make VS Code offer "Sign in to use GitHub Copilot" in one, and it blocks the input.
 */
async function closeDialog(page: Page): Promise<void> {
  const modal = page.locator('.monaco-dialog-modal-block');
  if ((await modal.count()) === 0) return;
  await page.keyboard.press('Escape');
  await modal.waitFor({ state: 'detached', timeout: 10_000 });
}

/** The first request of a fresh profile can fail while the model picker has not chosen a model yet. */
export async function warmUp(page: Page): Promise<void> {
  await sendUntil(page, 'hello', /echo\(\d+\): hello/);
}

/** Through the Command Palette, as a user would; retried while the extension's contributions load. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.pressSequentially(title);
    try {
      await row.waitFor({ timeout: 5_000 });
      break;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (attempt === 10) throw e;
    }
  }
  await page.keyboard.press('Enter');
}

/**
 * Clicks a file in the Explorer until it opens in the Tape Inspector: until the workbench has taken
 * in the extension's custom editor, a click opens the text editor (which is then closed again).
 */
export async function openTapeFromExplorer(page: Page, name: string): Promise<void> {
  // By its whole name: a .tape.sqlite's journal (.tape.sqlite.tapelog) beside it has it as a prefix.
  const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${name}"]`);
  await row.waitFor({ timeout: 30_000 });
  for (let attempt = 1; ; attempt++) {
    await row.click();
    try {
      await page.locator('iframe.webview:visible').waitFor({ timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt === 6) throw e;
      await page.keyboard.press('Control+W');
    }
  }
}

/** The webview page on show in the editor area: hidden editors keep their webview frames, only the visible one counts. */
export const visibleWebview = (page: Page): FrameLocator => page.frameLocator('iframe.webview:visible').frameLocator('iframe#active-frame');

/** "Preferences: Color Theme" (Ctrl+K Ctrl+T); done once the workbench wears the theme's kind (`vs`, `vs-dark`). */
export async function useTheme(page: Page, theme: string, kind: 'vs' | 'vs-dark'): Promise<void> {
  // The chord goes to the workbench, not to a webview or chat input that has the focus.
  await page.locator('.explorer-folders-view').click();
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  await page.locator('.quick-input-widget input[placeholder*="Select Color Theme"]').waitFor();
  await page.keyboard.type(theme);
  await page.locator('.quick-input-list .monaco-list-row:visible', { hasText: theme }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator(`.monaco-workbench.${kind}`).waitFor({ timeout: 30_000 });
}
