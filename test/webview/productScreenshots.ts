// The README's pictures, taken from the real web workbench as a user gets there: `npm run
// screenshots` (scripts/screenshots.mjs) calls takeProductScreenshots. It defines no test: it
// writes files, so it stays out of `npm test`.
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import {
  answer,
  closeWorkbench,
  openChat,
  openWorkbench,
  responses,
  runCommand,
  send,
  shots,
  useTheme,
  visibleWebview,
  warmUp,
  type Workbench,
} from './workbenchDriver';

/** The Marketplace page shows images up to about this wide; a larger one is only scaled down. */
const VIEWPORT = { width: 1280, height: 800 };
const THEMES = [
  ['Light Modern', 'vs', 'light'],
  ['Dark Modern', 'vs-dark', 'dark'],
] as const;

/** Writes docs/images/*.png under `outDir` and returns their paths. */
export async function takeProductScreenshots(outDir: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const shoot = async (page: Page, name: string, { keepHover = false } = {}): Promise<void> => {
    const file = path.join(outDir, `${name}.png`);
    // Tooltips and hovers that the pointer left open would date the picture, unless it shows one.
    if (!keepHover) await page.mouse.move(0, VIEWPORT.height - 1);
    await page.waitForTimeout(500);
    await page.screenshot({ path: file });
    written.push(file);
    log(`${path.relative(process.cwd(), file)} (${fs.statSync(file).size} bytes)`);
  };
  let workbench: Partial<Workbench> = {};
  try {
    workbench = await openWorkbench({ viewport: VIEWPORT });
    const { page } = workbench as Workbench;
    // In the workbench's default theme: the theme picker lists no theme until the workbench has settled.
    await chatAndRestore(page, shoot);
    await blame(page, shoot);
    await page.keyboard.press('Control+Alt+B'); // the Chat view's Secondary Side Bar, out of the inspector's way
    await runCommand(page, 'Tape: Open the Sample Tape');
    for (const [theme, kind, key] of THEMES) {
      await useTheme(page, theme, kind);
      // The Explorer out of the way while the inspector is shown, back for the next theme's chord.
      await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
      await inspectorViews(page, key, shoot);
      await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
    }
    await replay(page, shoot);
  } catch (e) {
    // Where it stopped, for whoever runs it again.
    await workbench.page?.screenshot({ path: path.join(shots, 'screenshots-failed.png') });
    throw e;
  } finally {
    await closeWorkbench(workbench);
  }
  return written;
}

type Shoot = (page: Page, name: string, options?: { keepHover?: boolean }) => Promise<void>;

/** @tape reads a file and edits another (allowed), then the turn's edit is undone: the plan the user confirms. */
async function chatAndRestore(page: Page, shoot: Shoot): Promise<void> {
  await openChat(page);
  await warmUp(page);
  await send(page, 'tool:read_file {"path":"src/greet.ts"}');
  await answer(page, /^.*done:/s);
  await send(page, 'tool:apply_edit {"path":"notes.txt","oldText":"alpha","newText":"beta"}');
  const allow = page.locator('.chat-confirmation-widget-buttons .monaco-button:visible', { hasText: /^Allow/ }).first();
  await allow.waitFor({ timeout: 30_000 });
  await allow.click();
  await answer(page, '1 file changed (+1 −1)');
  // Beside the chat, the turn's changes in VS Code's multi-diff editor.
  await responses(page).last().getByRole('button', { name: 'Review Changes' }).click();
  await page.locator('.editor-group-container .monaco-diff-editor .view-lines', { hasText: 'beta' }).first().waitFor({ timeout: 30_000 });
  await shoot(page, 'chat');
  await responses(page).last().getByRole('button', { name: "Undo This Turn's Changes" }).click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30_000 });
  await shoot(page, 'restore');
  await dialog.getByRole('button', { name: 'Restore Files' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
}

/** @tape changes a function; with agent blame on, its lines carry a note and the hover leads back to the turn. */
async function blame(page: Page, shoot: Shoot): Promise<void> {
  await send(
    page,
    'tool:apply_edit {"path":"src/greet.ts","oldText":"  return `Hello, ${name}!`;","newText":"  const who = name.trim() || \'stranger\';\\n  return `Hello, ${who}!`;"}',
  );
  // Edits were allowed for the session in chatAndRestore: no confirmation this time.
  await answer(page, '1 file changed (+2 −1)');
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'src' }).first().click();
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'greet.ts' }).click();
  await page.locator('.editor-group-container .view-lines', { hasText: 'stranger' }).waitFor({ timeout: 30_000 });
  await runCommand(page, 'Tape: Toggle Agent Blame');
  await page.locator('.statusbar-item', { hasText: '2 agent lines' }).waitFor({ timeout: 30_000 });
  await page.locator('.editor-group-container .view-line', { hasText: 'stranger' }).hover();
  await page.locator('.monaco-hover:visible', { hasText: 'Agent Tape blame' }).waitFor({ timeout: 30_000 });
  await shoot(page, 'blame', { keepHover: true });
  await runCommand(page, 'Tape: Toggle Agent Blame');
  await runCommand(page, 'View: Close All Editors');
}

/** The sample tape's coding session: its transcript, its requests with their diff, and its compaction's audit. */
async function inspectorViews(page: Page, theme: string, shoot: Shoot): Promise<void> {
  const inspector = visibleWebview(page);
  await inspector.locator('vscode-tab-header[data-view="transcript"]').click();
  await inspector.locator('.transcript-item').first().waitFor({ timeout: 60_000 });
  await shoot(page, `inspector-transcript-${theme}`);
  await inspector.locator('vscode-tab-header[data-view="requests"]').click();
  await inspector.locator('.diff').waitFor({ timeout: 30_000 });
  await shoot(page, `inspector-requests-${theme}`);
  await inspector.locator('vscode-tab-header[data-view="anchors"]').click();
  const missing = inspector.locator('.anchor .audit .audit-missing').first();
  await missing.waitFor({ timeout: 30_000 });
  // The page keeps it open across theme changes: a second click would close it.
  if ((await missing.getAttribute('open')) === null) await missing.locator('summary').first().click();
  await inspector.locator('.anchor .audit .audit-missing[open] .audit-facts').first().waitFor();
  await shoot(page, `inspector-anchors-${theme}`);
}

/** The sample tape replayed in the debugger, a few steps in, with the Variables view open. */
async function replay(page: Page, shoot: Shoot): Promise<void> {
  await runCommand(page, 'Tape: Replay the Sample Tape');
  const stepOver = page.locator('.debug-toolbar .action-label.codicon-debug-step-over');
  await stepOver.waitFor({ timeout: 60_000 });
  for (let n = 0; n < 6; n++) {
    await stepOver.click();
    await page.waitForTimeout(300);
  }
  await runCommand(page, 'View: Show Run and Debug');
  await page.locator('.debug-variables .monaco-list-row', { hasText: 'Entry' }).first().waitFor({ timeout: 30_000 });
  await shoot(page, 'replay');
  await page.keyboard.press('Shift+F5');
}
