import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { launchChromium, openInspectorPage, posted, root, tabTo, type StubWindow } from './inspectorPageFixture';
import { wearTheme } from './webviewThemes';

const PARENT = 's1';
const FORK = 's1::fork::ab12';
const GRANDCHILD = 's1::fork::ab12::fork::cd34';

/**
 * A fake host for a fork session on a writable tape: its transcript has a message read through
 * from the parent and one merged from its own fork; its lineage names the parent and that fork.
 */
function fakeHost(ids: { parent: string; fork: string; grandchild: string }): void {
  const w = window as unknown as { host: (m: InspectorToHost) => void };
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const base = { role: 'user', status: 'sent', cut: false, toolCalls: [] };
  const items = [
    {
      ...base,
      entryId: 3,
      messageId: 'm1',
      text: 'plan the parser',
      markers: ['inherited'],
      entryIds: [3],
      origin: { via: 'parent', sessionId: ids.parent, entryId: 3 },
      forkAt: 5,
    },
    {
      ...base,
      entryId: 7,
      messageId: 'm2',
      role: 'assistant',
      text: 'rewritten in the fork',
      markers: ['merged'],
      entryIds: [7, 8],
      origin: { via: 'merge', sessionId: ids.grandchild, entryId: 3 },
      forkAt: 9,
    },
  ];
  const answer = (m: InspectorToHost) => {
    if (m.type === 'ready') {
      reply({
        type: 'source',
        label: 'Workspace tape',
        readOnly: false,
        headEntryId: 10,
        sessionId: ids.fork,
        sessions: [
          { sessionId: ids.fork, title: 'plan the parser', entryCount: 6, lastCreatedAt: 1 },
          { sessionId: ids.parent, title: 'plan the parser', entryCount: 5, lastCreatedAt: 0 },
        ],
      });
      return reply({ type: 'transcript', sessionId: ids.fork, headEntryId: 10, offset: 0, total: items.length, items });
    }
    if (m.type !== 'request') return undefined;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    const p = m.params as { offset: number; limit: number; entryId: number };
    switch (m.method) {
      case 'lineage':
        return ok({
          sessionId: ids.fork,
          view: {
            ancestors: [
              { sessionId: ids.parent, title: 'plan the parser', relation: 'root', at: null },
              { sessionId: ids.fork, title: 'plan the parser', relation: 'fork', at: 5 },
            ],
            children: [
              {
                sessionId: ids.grandchild,
                title: 'plan the parser',
                task: null,
                relation: 'fork',
                state: 'merged',
                receipt: 'Merged fork "cd34" up to its #4: 2 entries; the parent had not moved on since #6.',
                receiptEntryId: 9,
              },
            ],
            receipts: [
              { entryId: 6, name: 'fork/start', createdAt: 0, summary: `Forked as "ab12" from ${ids.parent} at #5.`, aboutSessionId: ids.parent },
              {
                entryId: 9,
                name: 'fork/merge',
                createdAt: 1000,
                summary: 'Merged fork "cd34" up to its #4: 2 entries; the parent had not moved on since #6.',
                aboutSessionId: ids.grandchild,
              },
            ],
          },
        });
      case 'entries':
        return ok({
          offset: p.offset,
          total: 10,
          rows: Array.from({ length: Math.max(0, Math.min(p.limit, 10 - p.offset)) }, (_, k) => ({
            entryId: p.offset + k + 1,
            kind: 'event',
            name: `e/${p.offset + k + 1}`,
            summary: `row ${p.offset + k + 1}`,
            createdAt: 0,
          })),
        });
      case 'entry':
        return ok({ entryId: p.entryId, entry: JSON.stringify({ entryId: p.entryId }) });
      default:
        return undefined;
    }
  };
  w.host = answer;
}

const forkCommands = async (page: Page) => (await posted(page)).filter((m) => m.type === 'command');

describe('Tape Inspector webview in Chromium: forks', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    ({ page } = await openInspectorPage(browser, {
      host: fakeHost,
      arg: { parent: PARENT, fork: FORK, grandchild: GRANDCHILD },
      viewport: { width: 1000, height: 640 },
      errors,
    }));
    await page.waitForSelector('.transcript-item[data-message-id="m2"]');
  });
  after(async () => {
    assert.deepStrictEqual(errors, []);
    await browser?.close();
  });

  it('marks a message read through from the parent and one merged from a fork, with where each comes from', async () => {
    assert.deepStrictEqual(await page.locator('.transcript-item[data-message-id="m1"] .markers .badge').allTextContents(), ['from parent s1 #3']);
    assert.deepStrictEqual(await page.locator('.transcript-item[data-message-id="m2"] .markers .badge').allTextContents(), ['merged from fork cd34 #3']);
  });

  it("tells a fork from its parent in the session picker, though both carry the parent's title", async () => {
    assert.deepStrictEqual(await page.locator('#session-picker vscode-option').allTextContents(), [
      'plan the parser · fork ab12 (6 entries)',
      'plan the parser (5 entries)',
    ]);
  });

  it('"Fork from here" on a transcript message is reached by Tab and runs Tape: Fork Session at the end of its turn', async () => {
    await page.locator('.transcript-item[data-message-id="m1"]').focus();
    await tabTo(page, (el) => el.classList.contains('fork-here') && el.closest('[data-message-id]')?.getAttribute('data-message-id') === 'm2');
    assert.match((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) ?? '', /^Fork from here: .* #9$/);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as StubWindow).posted.some((m) => m.type === 'command'));
    assert.deepStrictEqual(await forkCommands(page), [{ type: 'command', command: 'agentTape.forkSession', args: [FORK, 9] }]);
    assert.strictEqual(await page.locator('#transcript-detail .detail-entry').count(), 0, 'the button did not open the item');
  });

  it('"Fork from here" in the Entries view forks at the selected entry, reached from the list by Shift+Tab', async () => {
    await page.locator('vscode-tab-header[data-view=entries]').click();
    await page.waitForSelector('.vlist-row[data-index="2"]');
    await page.locator('.vlist-row[data-index="2"]').click();
    await page.locator('.vlist').focus();
    await tabTo(page, (el) => el.closest('.entry-actions') !== null, { key: 'Shift+Tab' });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as StubWindow).posted.filter((m) => m.type === 'command').length === 2);
    assert.deepStrictEqual((await forkCommands(page))[1], { type: 'command', command: 'agentTape.forkSession', args: [FORK, 3] });
  });

  it('Replay in the header runs Tape: Replay Session on the session shown', async () => {
    const before = (await forkCommands(page)).length;
    await page.locator('.inspector-header vscode-button', { hasText: 'Replay' }).click();
    await page.waitForFunction((n) => (window as unknown as StubWindow).posted.filter((m) => m.type === 'command').length === n + 1, before);
    assert.deepStrictEqual((await forkCommands(page)).at(-1), { type: 'command', command: 'agentTape.replaySession', args: [FORK] });
  });

  it('"Export as OpenTelemetry…" beside Replay, text only in the theme\'s button colours, is reached by Tab and runs Tape: Export Session as OpenTelemetry on the session shown', async () => {
    const button = page.locator('.inspector-header vscode-button.export-otlp');
    assert.deepStrictEqual([await button.textContent(), await button.getAttribute('icon')], ['Export as OpenTelemetry…', null]);
    for (const theme of ['light', 'dark'] as const) {
      await wearTheme(page, theme);
      const [drawn, themed] = await button.evaluate((el) => {
        const probe = document.body.appendChild(document.createElement('div'));
        probe.style.backgroundColor = 'var(--vscode-button-secondaryBackground)';
        const want = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return [getComputedStyle(el.shadowRoot!.querySelector('.base')!).backgroundColor, want];
      });
      assert.strictEqual(drawn, themed, theme);
    }
    const before = (await forkCommands(page)).length;
    await page.locator('.inspector-header vscode-button', { hasText: 'Replay' }).focus();
    await tabTo(page, (el) => el.classList.contains('export-otlp'));
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => (window as unknown as StubWindow).posted.filter((m) => m.type === 'command').length === n + 1, before);
    assert.deepStrictEqual((await forkCommands(page)).at(-1), { type: 'command', command: 'agentTape.exportSessionOtlp', args: [FORK] });
  });

  it('follows a replay cursor: the entry selected in the Entries view, the transcript item holding it marked', async () => {
    await page.evaluate((sessionId) => window.postMessage({ type: 'cursor', sessionId, entryId: 8 }, '*'), FORK);
    await page.waitForSelector('.vlist-row[data-index="7"][aria-selected="true"]');
    assert.strictEqual(await page.locator('vscode-tabs').getAttribute('selected-index'), '1', 'the tab stays where it was');
    assert.strictEqual(await page.locator('.transcript-item.at-cursor').getAttribute('data-message-id'), 'm2');
    assert.strictEqual(await page.locator('.transcript-item.at-cursor').getAttribute('aria-current'), 'step');
  });

  it('shows the lineage: the chain with the fork point, the merged child and the receipts; another session opens by keyboard; Compare asks for the comparison with a child', async () => {
    await page.locator('vscode-tab-header[data-view=lineage]').click();
    await page.waitForSelector('.lineage-chain li');
    assert.deepStrictEqual(await page.locator('.lineage-chain li').allTextContents(), [
      'root plan the parser (s1)',
      "fork plan the parser (fork ab12) from its parent's #5",
    ]);
    assert.strictEqual(await page.locator('.lineage-chain li[aria-current="page"] .session-ref').textContent(), 'plan the parser (fork ab12)');
    assert.deepStrictEqual(await page.locator('.lineage-children .child .badge').allTextContents(), ['merged', 'fork']);
    assert.match((await page.locator('.lineage-children .receipt-text').textContent()) ?? '', /^Merged fork "cd34" up to its #4: 2 entries/);
    assert.deepStrictEqual(await page.locator('.receipts .anchor-name').allTextContents(), ['fork/start', 'fork/merge']);
    fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
    await wearTheme(page, 'light');
    await page.screenshot({ path: path.join(root, 'test-results', 'inspector-lineage.png') });
    await page.locator('vscode-tab-header[data-view=transcript]').click();
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(root, 'test-results', 'inspector-fork-transcript.png') });
    await page.locator('vscode-tab-header[data-view=lineage]').click();
    await page.locator('.lineage-children button.compare').click();
    const compare = (m: { type: string; command?: unknown }): boolean => m.type === 'command' && m.command === 'agentTape.compareSessions';
    await page.waitForFunction(() => (window as unknown as StubWindow).posted.some((m) => m.type === 'command' && m.command === 'agentTape.compareSessions'));
    assert.deepStrictEqual(
      (await posted(page)).filter(compare),
      [{ type: 'command', command: 'agentTape.compareSessions', args: [FORK, GRANDCHILD] }],
      "Compare asks for the two sessions' comparison, the shown one first",
    );
    await page.locator('.lineage-chain button.session-ref').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as StubWindow).posted.some((m) => m.type === 'selectSession'));
    assert.deepStrictEqual(
      (await posted(page)).filter((m) => m.type === 'selectSession'),
      [{ type: 'selectSession', sessionId: PARENT }],
    );
  });
});
