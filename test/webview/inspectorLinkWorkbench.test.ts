import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { FrameLocator, Page } from 'playwright-core';
import { closeWorkbench, openTapeFromExplorer, openWorkbench, root, shots, visibleWebview, type Workbench } from './workbenchDriver';

const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');
const CLI = path.join(root, 'dist/cli.js');
const ANSWER = 'See **the guide** at [the docs](https://example.com/agent-tape-docs), or run `npm test`:\n\n```sh\nnpm test\n```';

/**
 * Markdown in the real workbench: a message's link, pressed in the inspector's webview, reaches
 * VS Code's own opener, which asks before it opens a site not trusted; nothing opens unasked.
 */
describe('the Tape Inspector in the VS Code web workbench: Markdown and links', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;

  before(async () => {
    workbench = await openWorkbench({
      testModel: false,
      prepare: (dir) => {
        // Made as a user would, with the CLI; exported, so the Explorer shows one tape file and no journal.
        const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-links-'));
        const tape = path.join(work, 'links.tape.sqlite');
        const run = (args: string[], input?: string) => {
          const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8' });
          assert.strictEqual(r.status, 0, `agent-tape ${args.join(' ')}: ${r.stderr}`);
        };
        run(['import', SAMPLE, tape]);
        const entry = {
          kind: 'message',
          name: 'message/assistant',
          payload: { messageId: 'md-1', role: 'assistant', status: 'sent', orderSeq: 100, content: ANSWER },
        };
        run(['append', tape, '--session', 'inspector-sample'], `${JSON.stringify(entry)}\n`);
        run(['export', tape, path.join(dir, 'links.tape.jsonl')]);
        fs.rmSync(work, { recursive: true, force: true });
      },
    });
    ({ page } = workbench as Workbench);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await page.screenshot({ path: path.join(shots, 'workbench-inspector-link-failed.png') });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);

  it('renders the message as Markdown; its link asks VS Code, which asks the user first', async () => {
    await openTapeFromExplorer(page, 'links.tape.jsonl');
    const item = inspector().locator('.transcript-item', { hasText: 'See the guide' });
    await item.waitFor({ timeout: 60_000 });
    assert.strictEqual(await item.locator('.text.md strong').textContent(), 'the guide');
    assert.strictEqual(await item.locator('.text.md pre code').textContent(), 'npm test');
    const link = item.locator('.md-link');
    assert.strictEqual(await link.getAttribute('href'), null);
    fs.mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-markdown.png') });

    const pages = page.context().pages().length;
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'https://example.com/agent-tape-docs' });
    // Once in a CI run on a loaded machine the first click into the not yet focused webview brought
    // no dialog in 30 s (not seen here in 7 tries, loaded or not). A second press tells a lost click
    // from a link that does not open: the latter still fails, and the first miss is on a screenshot.
    let presses = 1;
    await link.click();
    try {
      await dialog.waitFor({ timeout: 15_000 });
    } catch {
      presses++;
      await page.screenshot({ path: path.join(shots, 'workbench-inspector-link-first-click-lost.png') });
      console.warn('      (the first click on the link brought no dialog in 15 s; pressed again)');
      await link.click();
      await dialog.waitFor({ timeout: 30_000 });
    }
    assert.match((await dialog.textContent()) ?? '', /open the external website/i);
    await page.screenshot({ path: path.join(shots, 'workbench-inspector-link-confirm.png') });
    // Each press asks once; a late answer to the first press is a second dialog after this one.
    for (let i = 0; i < presses; i++) {
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden', timeout: i + 1 < presses ? 5_000 : 30_000 }).catch((e: unknown) => {
        if (i + 1 === presses) throw e;
      });
    }
    assert.strictEqual(page.context().pages().length, pages, 'nothing opened');
  });
});
