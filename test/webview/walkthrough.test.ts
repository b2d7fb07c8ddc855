import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { probeLocalServers } from '../../src/agent/model/localServers';
import { CHROMIUM, CHROMIUM_ARGS, startServer, type RunningServer } from '../support/vscodeServer';
import { openTapeFromExplorer, openWindow, root, runCommand, shots, visibleWebview } from './workbenchDriver';

const FIRST_RUN = path.join(root, 'scripts', 'first-run-walkthrough');

/**
 * The first run as `npm start` sets it up: the demo workspace, Agent Tape as the development
 * extension and the first-run helper installed beside it, in a fresh profile. The walkthrough opens
 * by itself, and its first two steps do what they say with no model at all: the sample tape opens
 * in the inspector, and its replay stops in the debugger.
 */
describe('the first-run walkthrough in the VS Code web workbench', () => {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let ws: string;
  let profile: string;

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-first-run-ws-'));
    fs.cpSync(path.join(root, 'demo'), ws, { recursive: true });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-first-run-profile-'));
    server = await startServer({ extensionFolders: [FIRST_RUN], dataDir: profile });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await openWindow(context, server, ws);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-walkthrough-failed-${this.currentTest.title.slice(0, 24).replace(/\W+/g, '-')}.png`) });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    for (const d of [ws, profile]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  const walkthrough = () => page.locator('.gettingStartedContainer');
  const step = (title: string) => walkthrough().locator('.getting-started-step', { hasText: title });
  /**
   * Brings the walkthrough to the front: its editor tab (VS Code names it "Welcome"), or, once that
   * was closed, "Welcome: Open Walkthrough…" as a user would.
   */
  async function showWalkthrough(): Promise<void> {
    if (await walkthrough().isVisible()) return;
    const tab = page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first();
    if ((await tab.count()) > 0) await tab.click();
    else {
      await runCommand(page, 'Welcome: Open Walkthrough');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Agent Tape' }).first().click();
    }
    await walkthrough().waitFor({ timeout: 30_000 });
  }
  /** The button a step's command link on a line of its own becomes; the step is expanded first. */
  async function clickStepButton(title: string, button: string): Promise<void> {
    await showWalkthrough();
    const s = step(title);
    await s.waitFor({ timeout: 30_000 });
    const b = s.getByRole('button', { name: button });
    if (!(await b.isVisible())) await s.locator('.step-title').click();
    await b.click();
  }
  const inspector = (): FrameLocator => visibleWebview(page);

  it('opens by itself on the first start of a profile, with its four steps', async () => {
    await walkthrough().filter({ hasText: 'Get Started with Agent Tape' }).waitFor({ timeout: 60_000 });
    for (const title of ['Open the sample tape in the inspector', 'Step through it in the debugger', 'Set up a model', 'Ask @tape'])
      await step(title).waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-walkthrough.png') });
  });

  it('step 1: "Open the Sample Tape" shows the sample’s coding session in the Tape Inspector, and the step is done', async () => {
    await clickStepButton('Open the sample tape in the inspector', 'Open the Sample Tape');
    await inspector().locator('.transcript-item', { hasText: 'Make a blank name greet the world' }).first().waitFor({ timeout: 60_000 });
    await inspector().locator('.transcript-item', { hasText: 'grep -n' }).first().waitFor();
    await page.screenshot({ path: path.join(shots, 'workbench-walkthrough-sample.png') });
    // Back on the walkthrough, the step is checked off (its completion event is the command).
    await showWalkthrough();
    await step('Open the sample tape in the inspector').locator('.codicon-getting-started-step-checked').waitFor({ timeout: 30_000 });
  });

  it('step 2: "Replay the Sample Tape" starts the replay of demo-coding, stopped on its first entry', async () => {
    await clickStepButton('Step through it in the debugger', 'Replay the Sample Tape');
    const stepOver = page.locator('.debug-toolbar .action-label.codicon-debug-step-over');
    await stepOver.waitFor({ timeout: 60_000 });
    // Stopped on entry 1 of the session, the call stack says so; a step moves it to entry 2.
    await runCommand(page, 'View: Show Run and Debug');
    const frame = (entry: number) => page.locator('.debug-call-stack .monaco-list-row', { hasText: new RegExp(`demo-coding\\s+#${entry}\\s`) }).first();
    // On a loaded machine the call stack can show the thread collapsed, and then no frame is
    // focused and the Variables view stays empty (each seen once in CI): open the thread and pick
    // the top frame, as a person would.
    const thread = page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Replay of demo-coding' }).first();
    await frame(1).or(thread).first().waitFor({ timeout: 30_000 });
    if (!(await frame(1).isVisible()) && (await thread.getAttribute('aria-expanded')) === 'false') await thread.click();
    await frame(1).waitFor({ timeout: 30_000 });
    const entryScope = page.locator('.debug-variables .monaco-list-row', { hasText: 'Entry' }).first();
    try {
      await entryScope.waitFor({ timeout: 10_000 });
    } catch {
      await frame(1).click();
      await entryScope.waitFor({ timeout: 30_000 });
    }
    assert.match((await frame(1).textContent()) ?? '', /#1\s+anchor\s+session\/start/);
    // The replay document is the session, one entry per line.
    await page
      .locator('.monaco-editor .view-line', { hasText: /#4\s+message\s+message\/user:\s+greet/ })
      .first()
      .waitFor();
    await stepOver.click();
    await frame(2).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'workbench-walkthrough-replay.png') });
    await page.keyboard.press('Shift+F5');
    await stepOver.waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('the sample also opens from the Explorer, in the tape editor', async () => {
    await page.keyboard.press('Control+Shift+E');
    const folder = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'samples' }).first();
    await folder.waitFor({ timeout: 30_000 });
    if ((await folder.getAttribute('aria-expanded')) !== 'true') await folder.click();
    await openTapeFromExplorer(page, 'coding-session.tape.sqlite');
    await inspector().locator('.transcript-item', { hasText: 'Make a blank name greet the world' }).first().waitFor({ timeout: 60_000 });
  });

  it('step 3: "Set Up a Model…" lists the models of a server on a usual port, and with none there explains the other ways', async () => {
    await clickStepButton('Set up a model', 'Set Up a Model…');
    const picker = page.locator('.quick-input-widget');
    await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'Use GitHub Copilot' }).waitFor({ timeout: 30_000 });
    await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'Another server or a URL' }).waitFor();
    const nothing = ((await picker.locator('input').getAttribute('placeholder')) ?? '').startsWith('No model server answered');
    await page.keyboard.press('Escape');
    // The workbench's extension host runs on this machine: what it found is what a probe from here finds.
    assert.strictEqual(nothing, !(await probeLocalServers()).some((r) => r.status === 'found' && r.models.length > 0));

    // A fake Ollama on its usual port, where this machine lets the test have it.
    const ollama = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'walkthrough-model:7b' }] }));
    });
    const bound = await new Promise<boolean>((resolve) => {
      ollama.once('error', () => resolve(false));
      ollama.listen(11434, '127.0.0.1', () => resolve(true));
    });
    // Taken (a real Ollama runs here): what it lists was offered above already.
    if (!bound) return;
    try {
      await runCommand(page, 'Tape: Set Up a Model…');
      await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'Ollama at http://127.0.0.1:11434/v1' }).waitFor({ timeout: 30_000 });
      await picker.locator('.quick-input-list .monaco-list-row', { hasText: 'walkthrough-model:7b' }).click();
      // The own provider offers it at once: the Chat view's model picker shows it.
      await page.locator('.interactive-input-part', { hasText: 'walkthrough-model:7b' }).first().waitFor({ timeout: 30_000 });
      await step('Set up a model').locator('.codicon-getting-started-step-checked').waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(shots, 'workbench-walkthrough-model.png') });
    } finally {
      ollama.closeAllConnections();
      await new Promise((resolve) => ollama.close(resolve));
    }
  });

  it('does not open again on the next start of the same profile', async () => {
    // The same browser profile (where the web workbench keeps extension state) on another folder,
    // so that no editor of the first window is restored.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-first-run-other-'));
    const again = await openWindow(context, server as RunningServer, other);
    try {
      // The helper runs at the end of start-up; give it that time before saying it did nothing.
      await again.waitForTimeout(8_000);
      assert.strictEqual(await again.locator('.gettingStartedContainer').count(), 0);
    } finally {
      await again.close();
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
