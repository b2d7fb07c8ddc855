import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TapeStore } from '../../src/store/tapeStore';
import { CHROMIUM, CHROMIUM_ARGS, startServer, type RunningServer } from '../support/vscodeServer';
import { FAKE_LM, answer, openChat, openWindow, scratchWorkspace, send, sendUntil, shots, warmUp } from './workbenchDriver';

/**
 * Every workspace tape beneath `dir` (the server's data folder: the remote extension host keeps
 * workspace storage in <user data>/User/workspaceStorage/<workspace id>/<extension id>/).
 */
function findTapes(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name === 'workspace.tape.sqlite')
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Every entry of the tape as JSON, read the way a third party would: read-only, no lock taken. */
async function tapeText(file: string): Promise<string> {
  const store = await TapeStore.open(file, { readOnly: true });
  try {
    return store
      .entries(null)
      .map((e) => JSON.stringify(e))
      .join('\n');
  } finally {
    await store.close();
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The Agent Tape status bar item (its DOM id is `<extension id>.agentTape.tapeState`). */
const tapeState = (page: Page) => page.locator('.statusbar-item[id$="agentTape.tapeState"]');

const SECOND = 'from the second window';
const TAKEOVER = 'after the takeover';

describe('@tape in a second window on the same workspace', () => {
  let server: RunningServer;
  let browser: Browser;
  let ws: string;
  let first: Page;
  let second: Page;
  let tape: string;
  let firstHost: number;

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const name = `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`;
    for (const [label, page] of [
      ['first', first],
      ['second', second],
    ] as const) {
      if (page && !page.isClosed()) await page.screenshot({ path: path.join(shots, `${name}-${label}-window.png`) });
    }
  });
  before(async () => {
    ws = scratchWorkspace();
    server = await startServer({ extensionFolders: [FAKE_LM] });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    // Window 1 asks @tape first, so its extension host opens the tape writable and holds its lock.
    first = await openWindow(browser, server, ws);
    try {
      await openChat(first);
      await warmUp(first);
    } catch (e) {
      // afterEach does not run when a `before` hook fails.
      await first.screenshot({ path: path.join(shots, 'failed-second-window-setup.png') });
      throw e;
    }
    const tapes = findTapes(server.dir);
    assert.strictEqual(tapes.length, 1, `workspace tapes beneath ${server.dir}: ${tapes.join(', ') || 'none'}`);
    tape = tapes[0];
    firstHost = Number.parseInt(fs.readFileSync(`${tape}.lock`, 'utf8'), 10);
    assert.ok(isAlive(firstHost), `the tape's lock names pid ${firstHost}, which is not running`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('gets the tape read-only, says so in the reply and the status bar, and writes nothing', async () => {
    second = await openWindow(browser, server, ws);
    await openChat(second);
    // The first request of a window can fail before the handler runs ("Language model
    // unavailable"); a read-only answer or a model's echo both mean the handler ran.
    const text = await sendUntil(second, SECOND, new RegExp(`read-only|echo\\(\\d+\\): ${SECOND}`));
    // Both windows must be on one tape, although a VS Code server gives the second window the
    // storage folder "<id>-1" (src/extension/tapeLocation.ts).
    assert.deepStrictEqual(findTapes(server.dir), [tape], "window 2 opened a workspace tape of its own instead of window 1's");
    assert.match(text, /This window's tape is read-only: another window on this workspace \(process \d+\) is writing it\./);
    assert.match(text, /Nothing was sent or written/);
    assert.match(text, /The workspace tape is read-only in this window\./);
    await tapeState(second).filter({ hasText: 'Tape read-only' }).waitFor({ timeout: 15_000 });
    assert.strictEqual(await tapeState(first).filter({ hasText: 'Tape read-only' }).count(), 0, 'the writing window says its tape is read-only');
    await second.screenshot({ path: path.join(shots, 'second-window-read-only.png') });

    // Window 1 still holds the tape, and window 2's request is not on it (window 1's warm-up is).
    assert.strictEqual(Number.parseInt(fs.readFileSync(`${tape}.lock`, 'utf8'), 10), firstHost);
    const onTape = await tapeText(tape);
    assert.match(onTape, /hello/);
    assert.ok(!onTape.includes(SECOND), "window 2's request is on the tape");
  });

  it('takes the tape over when the first window closes', async () => {
    const wasReadOnly = await tapeState(second).filter({ hasText: 'Tape read-only' }).count();
    // Closing the tab (with or without beforeunload) makes the workbench end its connections with a
    // Disconnect message, and the server ends that window's extension host at once (server log: "The
    // client has disconnected gracefully", "Extension Host Process exited with code: 0"); a host whose
    // socket merely drops is kept for the reconnection grace time (3 hours by default).
    await first.close({ runBeforeUnload: true });
    for (let i = 0; i < 75 && isAlive(firstHost); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!isAlive(firstHost), `window 1's extension host (pid ${firstHost}) still runs 15 s after its window closed`);
    const holder = fs.existsSync(`${tape}.lock`) ? Number.parseInt(fs.readFileSync(`${tape}.lock`, 'utf8'), 10) : null;
    assert.notStrictEqual(holder, firstHost, "window 1 closed but the tape's lock still names its host");
    assert.strictEqual(wasReadOnly, 1, 'window 2 did not show a read-only tape before window 1 closed: nothing to take over');

    // Window 2 notices the released lock, reopens the tape writable and hides the item.
    await tapeState(second).waitFor({ state: 'hidden', timeout: 15_000 });
    await send(second, TAKEOVER);
    await answer(second, new RegExp(`echo\\(\\d+\\): ${TAKEOVER}`));
    await second.screenshot({ path: path.join(shots, 'second-window-writable.png') });
    assert.notStrictEqual(Number.parseInt(fs.readFileSync(`${tape}.lock`, 'utf8'), 10), firstHost, "window 2 writes, yet the lock names window 1's host");
    assert.ok((await tapeText(tape)).includes(TAKEOVER), "window 2's request after the takeover is not on the tape");
  });
});
