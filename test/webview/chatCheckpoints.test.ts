import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { TapeStore } from '../../src/store/tapeStore';
import type { Entry } from '../../src/tape/entry';
import { answer, closeWorkbench, openChat, openWorkbench, responses, runCommand, send, shots, warmUp, type Workbench } from './workbenchDriver';

/** The workspace tape beneath the server's data folder (workspace storage of the remote extension host). */
function workspaceTape(dir: string): string | undefined {
  const found = fs.readdirSync(dir, { withFileTypes: true, recursive: true }).find((e) => e.isFile() && e.name === 'workspace.tape.sqlite');
  return found && path.join(found.parentPath, found.name);
}

/** Every entry of the tape, read as a third party would: read-only, no lock taken. */
async function tapeEntries(file: string): Promise<Entry[]> {
  const store = await TapeStore.open(file, { readOnly: true });
  try {
    return store.entries(null);
  } finally {
    await store.close();
  }
}

/** A file's text, or null while it is absent: git's restore writes a file anew (unlinked, then created). */
function textOf(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

async function poll<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}

describe("@tape's file checkpoints in the VS Code web workbench, as a user sees them", () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;
  let ws: string;

  before(async () => {
    workbench = await openWorkbench();
    ({ page, ws } = workbench as Workbench);
    await openChat(page);
    await warmUp(page);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-checkpoints-failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}.png`) });
  });
  after(() => closeWorkbench(workbench));

  it("an allowed edit ends the reply with '1 file changed', Review Changes (the multi-diff editor) and Undo This Turn's Changes, which (after its confirmation) puts the file back and records it on the tape", async () => {
    const notes = path.join(ws, 'notes.txt');
    const original = fs.readFileSync(notes, 'utf8');
    await send(page, 'tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"beta"}');
    const allow = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: /^Allow/ }).first();
    await allow.waitFor({ timeout: 30_000 });
    await allow.click();
    await answer(page, 'done: replaced 1 occurrence in notes.txt');
    const text = await answer(page, '1 file changed (+1 −1)');
    assert.ok(text.indexOf('1 file changed') > text.indexOf('done: replaced'), 'the changes line comes after the answer');
    assert.strictEqual(fs.readFileSync(notes, 'utf8'), 'beta\n');
    const response = responses(page).last();
    await page.screenshot({ path: path.join(shots, 'chat-turn-changes.png') });
    // Review Changes: VS Code's multi-diff editor of the turn, the file as before and after it.
    await response.getByRole('button', { name: 'Review Changes' }).click();
    await page.locator('.tabs-container .tab', { hasText: /Changes of turn .*\(1 file\)/ }).waitFor({ timeout: 30_000 });
    const diff = page.locator('.editor-group-container .monaco-diff-editor').first();
    await diff.locator('.view-lines', { hasText: 'beta' }).first().waitFor({ timeout: 30_000 });
    await diff.locator('.view-lines', { hasText: 'alpha' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'chat-review-changes.png') });

    await response.getByRole('button', { name: "Undo This Turn's Changes" }).click();
    // The plan first, in a modal: the file that will change, then the user's yes.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /Changed \(1\):\s*notes\.txt/);
    await page.screenshot({ path: path.join(shots, 'chat-undo-turn-plan.png') });
    await dialog.getByRole('button', { name: 'Restore Files' }).click();

    await poll('notes.txt back as it was', () => (textOf(notes) === original ? true : undefined));
    const file = workspaceTape(workbench.server!.dir);
    assert.ok(file, 'the workspace tape');
    const restored = await poll('workspace/restored on the tape', async () => (await tapeEntries(file)).find((e) => e.name === 'workspace/restored'));
    assert.deepStrictEqual(
      { changed: (restored.payload.data as { changed: string[] }).changed, session: restored.sessionId.startsWith('chat-') },
      { changed: ['notes.txt'], session: true },
    );
    const checkpoints = (await tapeEntries(file)).filter((e) => e.sessionId === restored.sessionId && e.name === 'workspace/checkpoint');
    assert.deepStrictEqual(
      checkpoints.map((e) => (e.payload.data as { reason: string }).reason),
      ['turn_start', 'turn_end', 'before_restore'],
    );
  });

  it('"Tape: Restore Files…" from the Command Palette lists the chat session\'s checkpoints newest first and restores the one picked', async () => {
    const notes = path.join(ws, 'notes.txt');
    assert.strictEqual(textOf(notes), 'alpha\n', 'as the undo left it');
    await runCommand(page, 'Tape: Restore Files…');
    const input = page.locator('.quick-input-widget input[placeholder$="newest first"]');
    await input.waitFor({ timeout: 30_000 });
    const rows = page.locator('.quick-input-list .monaco-list-row:visible');
    await rows.first().waitFor();
    // A row's first label is its own; its detail line has one too.
    assert.deepStrictEqual(await rows.evaluateAll((all) => all.map((row) => row.querySelector('.label-name')?.textContent)), [
      'After a restore',
      'Before a restore',
      'After a turn changed files',
      'Before a turn changed files',
    ]);
    // The turn's own request names each of its checkpoints.
    const turnEnd = rows.filter({ hasText: 'After a turn changed files' });
    assert.match((await turnEnd.textContent()) ?? '', /1 file changed in the turn · "tool:apply_edit /);
    await page.screenshot({ path: path.join(shots, 'palette-restore-files.png') });
    await input.pressSequentially('After a turn');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Restore Files' }).click();
    await poll('notes.txt as the turn left it', () => (textOf(notes) === 'beta\n' ? true : undefined));
  });

  it('/fork of a session with checkpoints offers Restore Files to the Fork Point, which restores into the fork', async () => {
    const notes = path.join(ws, 'notes.txt');
    // Changed outside the agent after the fork point's checkpoint (as the last restore left it).
    fs.writeFileSync(notes, 'gamma\n');
    await send(page, '/fork');
    // Enter may first accept the slash command from the suggestions: then the request is still in the input.
    const input = page.locator('.interactive-input-part .interactive-input-editor .view-lines').first();
    await page.waitForTimeout(1000);
    if (((await input.textContent()) ?? '').includes('/fork')) await page.keyboard.press('Enter');
    await answer(page, /Forked this session at entry #\d+ as fork/);
    await responses(page).last().getByRole('button', { name: 'Restore Files to the Fork Point' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /::fork::/);
    await dialog.getByRole('button', { name: 'Restore Files' }).click();
    await poll('notes.txt as at the fork point', () => (textOf(notes) === 'beta\n' ? true : undefined));
    const file = workspaceTape(workbench.server!.dir)!;
    const restores = await poll('the restore recorded in the fork', async () => {
      const found = (await tapeEntries(file)).filter((e) => e.name === 'workspace/restored');
      return found.some((e) => e.sessionId.includes('::fork::')) ? found : undefined;
    });
    assert.deepStrictEqual(
      restores.map((e) => [e.sessionId.includes('::fork::'), (e.payload.data as { changed: string[] }).changed]),
      [
        [false, ['notes.txt']],
        [false, ['notes.txt']],
        [true, ['notes.txt']],
      ],
    );
  });
});
