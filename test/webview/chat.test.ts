import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, startServer, workbenchUrl, type RunningServer } from '../support/vscodeServer';

const root = path.resolve(__dirname, '../../..');
const shots = path.join(root, 'test-results');
const FAKE_LM = path.join(root, 'test/fixtures/fake-lm');

/** A scratch copy of the demo workspace: these tests edit files. */
function scratchWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-chat-ws-'));
  fs.cpSync(path.join(root, 'demo'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'alpha\n');
  return dir;
}

/** The workbench as a user sees it, with the deterministic test model installed. */
async function openWorkbench(): Promise<{ server: RunningServer; browser: Browser; page: Page; ws: string }> {
  const ws = scratchWorkspace();
  const server = await startServer({ extensionFolders: [FAKE_LM] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(workbenchUrl(server, { folder: ws, extensionDevelopmentPath: root }));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  fs.mkdirSync(shots, { recursive: true });
  return { server, browser, page, ws };
}

/**
 * Types a request to @tape into the chat input as a user does (the input is a Monaco editor: click
 * it, then type). A sticky participant leaves `@tape ` in the input after each request; typed
 * before the participant list has loaded, `@tape` would go to the default chat instead.
 */
async function send(page: Page, text: string): Promise<void> {
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

const responses = (page: Page) => page.locator('.interactive-item-container.interactive-response');

/** Waits for the newest response to contain `text` and returns its text. */
async function answer(page: Page, text: string | RegExp, timeout = 30_000): Promise<string> {
  const response = responses(page).last();
  await response.filter({ hasText: text }).waitFor({ timeout });
  return (await response.textContent()) ?? '';
}

async function openChat(page: Page): Promise<void> {
  await page.keyboard.press('Control+Alt+KeyI');
  await page.locator('.interactive-input-part').first().waitFor({ timeout: 30_000 });
}

/** The first request of a fresh profile can fail while the model picker has not chosen a model yet. */
async function warmUp(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await send(page, 'hello');
    try {
      return void (await answer(page, /echo\(\d+\): hello/, 15_000));
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/** The visible button of a tool confirmation (it is drawn twice: in the response and above the input). */
async function confirmation(page: Page, label: RegExp): Promise<void> {
  const button = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: label }).first();
  await button.waitFor({ timeout: 30_000 });
  await button.click();
}

describe('@tape in the Chat view, as a user sees it', () => {
  describe('with the scripted test model', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let ws: string;

    afterEach(async function () {
      if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}.png`) });
    });
    before(async () => {
      ({ server, browser, page, ws } = await openWorkbench());
      await openChat(page);
      await warmUp(page);
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      fs.rmSync(ws, { recursive: true, force: true });
    });

    it('shows tool activity, a reference to the file read, and the answer', async () => {
      await send(page, 'tool:read_file {"path":"notes.txt"}');
      await answer(page, 'done: alpha');
      // The steps and the references are collapsed ("Completed N steps", "Used N references"); a user opens both.
      const response = responses(page).last();
      await response.getByText(/^Completed \d+ steps?$/).click();
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
  });
});
