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
async function openWorkbench(opts: { workspaceTrust?: boolean } = {}): Promise<{ server: RunningServer; browser: Browser; page: Page; ws: string }> {
  const ws = scratchWorkspace();
  const server = await startServer({ extensionFolders: [FAKE_LM], workspaceTrust: opts.workspaceTrust });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(workbenchUrl(server, { folder: ws, extensionDevelopmentPath: root }));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  fs.mkdirSync(shots, { recursive: true });
  return { server, browser, page, ws };
}

/** Types into the chat input as a user does (the input is a Monaco editor: click it, then type). */
async function send(page: Page, text: string): Promise<void> {
  const input = page.locator('.interactive-input-part .interactive-input-editor').first();
  await input.waitFor({ timeout: 30_000 });
  await input.click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

const responses = (page: Page) => page.locator('.interactive-item-container.interactive-response');

/** Waits for the n-th response (1-based) to contain `text`; the workbench may need a second try to pick the model. */
async function answer(page: Page, n: number, text: string | RegExp, timeout = 30_000): Promise<string> {
  const response = responses(page).nth(n - 1);
  await response.filter({ hasText: text }).waitFor({ timeout });
  return (await response.textContent()) ?? '';
}

async function openChat(page: Page): Promise<void> {
  await page.keyboard.press('Control+Alt+KeyI');
  await page.locator('.interactive-input-part').first().waitFor({ timeout: 30_000 });
}

/** The first request of a fresh profile can fail while the model picker has not chosen a model yet. */
async function warmUp(page: Page): Promise<number> {
  for (let n = 1; n <= 3; n++) {
    await send(page, '@tape hello');
    try {
      await answer(page, n, /echo\(\d+\): hello/, 15_000);
      return n;
    } catch (e) {
      if (n === 3) throw e;
    }
  }
  throw new Error('unreachable');
}

/** The visible button of a tool confirmation (it is drawn twice: in the response and above the input). */
async function confirmation(page: Page, label: RegExp): Promise<void> {
  const button = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: label }).first();
  await button.waitFor({ timeout: 30_000 });
  await button.click();
}

describe('@tape in the Chat view, as a user sees it', () => {
  describe('in a trusted workspace', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let ws: string;
    let n = 0;

    afterEach(async function () {
      if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}.png`) });
    });
    before(async () => {
      ({ server, browser, page, ws } = await openWorkbench());
      await openChat(page);
      n = await warmUp(page);
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      fs.rmSync(ws, { recursive: true, force: true });
    });

    it('shows tool activity, a reference to the file read, and the answer', async () => {
      await send(page, '@tape tool:read_file {"path":"notes.txt"}');
      const text = await answer(page, ++n, 'done: alpha');
      assert.match(text, /notes\.txt/, 'the file read is referenced in the response');
      await page.screenshot({ path: path.join(shots, 'chat-tool-activity.png') });
    });

    it('apply_edit asks first; allowed, the file changes and Undo in the editor restores it', async () => {
      await send(page, '@tape tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"beta"}');
      n++;
      await page.locator('.chat-confirmation-widget-buttons').first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(shots, 'chat-edit-confirmation.png') });
      await confirmation(page, /^Allow/);
      await answer(page, n, 'done: replaced 1 occurrence in notes.txt');
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'beta\n');
      // Undo where a user would: in the file's editor.
      await page.keyboard.press('Control+P');
      await page.keyboard.type('notes.txt');
      await page.keyboard.press('Enter');
      const lines = page.locator('.editor-instance .view-lines').first();
      await lines.filter({ hasText: 'beta' }).waitFor({ timeout: 15_000 });
      await lines.click();
      await page.keyboard.press('Control+Z');
      await lines.filter({ hasText: 'alpha' }).waitFor({ timeout: 15_000 });
      await page.keyboard.press('Control+S');
      for (let i = 0; i < 50 && fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8') !== 'alpha\n'; i++) await new Promise((r) => setTimeout(r, 100));
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'alpha\n');
    });

    it('apply_edit declined: nothing is written and the model reads the refusal', async () => {
      await openChat(page);
      await send(page, '@tape tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"gamma"}');
      n++;
      await confirmation(page, /^Skip/);
      const text = await answer(page, n, /done: .*declined/);
      assert.match(text, /notes\.txt was not changed/);
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'alpha\n');
      await page.screenshot({ path: path.join(shots, 'chat-edit-declined.png') });
    });
  });

  describe('in an untrusted workspace', () => {
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let ws: string;

    afterEach(async function () {
      if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}.png`) });
    });
    before(async () => {
      ({ server, browser, page, ws } = await openWorkbench({ workspaceTrust: true }));
      await openChat(page);
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      fs.rmSync(ws, { recursive: true, force: true });
    });

    it('apply_edit is not offered to the model: the test model, which calls a tool only when offered, answers instead', async () => {
      const n = await warmUp(page);
      await send(page, '@tape tool:apply_edit {"path":"notes.txt","newText":"x"}');
      await answer(page, n + 1, /echo\(\d+\): tool:apply_edit/);
      assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'alpha\n');
      await send(page, '@tape tool:read_file {"path":"notes.txt"}');
      await answer(page, n + 2, 'done: alpha');
      await page.screenshot({ path: path.join(shots, 'chat-untrusted.png') });
    });
  });
});
