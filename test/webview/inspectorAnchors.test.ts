import * as assert from 'assert';
import type { Browser, Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { launchChromium, openInspectorPage, tabTo, type StubWindow } from './inspectorPageFixture';

const EVIL = '<img src=x onerror="window.__pwned=1">';

interface FakeWindow extends StubWindow {
  __pwned?: number;
}

/** A fake host whose session has one compaction anchor with an audit; fact values carry markup. */
function fakeHost(evil: string): void {
  const w = window as unknown as FakeWindow;
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const total = (facts: number, inSummary: number) => ({ facts, inSummary });
  const answer = (m: InspectorToHost) => {
    if (m.type === 'ready') {
      reply({
        type: 'source',
        label: 'Workspace tape',
        readOnly: false,
        headEntryId: 30,
        sessionId: 's1',
        sessions: [{ sessionId: 's1', title: 'audit', entryCount: 30, lastCreatedAt: 0 }],
      });
      return reply({ type: 'transcript', sessionId: 's1', headEntryId: 30, offset: 0, total: 0, items: [] });
    }
    if (m.type !== 'request') return undefined;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    const p = m.params as { offset: number; limit: number; entryId: number };
    switch (m.method) {
      case 'anchors':
        return ok({
          sessionId: 's1',
          items: [
            { entryId: 1, name: 'session/start', createdAt: 0, inForce: false, state: '{}', checkpoint: null, audit: null, amendments: null, amendable: null },
            {
              entryId: 10,
              name: 'compaction/early',
              createdAt: 500,
              inForce: false,
              state: '{"summary":"early"}',
              checkpoint: 'early',
              audit: {
                range: { from: 2, to: 9 },
                totals: { path: total(1, 0), command: total(0, 0), error: total(0, 0), request: total(1, 1), tool: total(0, 0) },
                missing: [{ kind: 'path', value: 'old.ts', entryIds: [4] }],
                missingOmitted: 0,
              },
              amendments: { pins: [], pinnedFacts: [], pinnedEntryIds: [], summaryEntryId: null, undoneBy: 15 },
              amendable: null,
            },
            {
              entryId: 20,
              name: 'compaction/auto',
              createdAt: 1000,
              inForce: true,
              state: '{"summary":"s"}',
              checkpoint: 'summary',
              audit: {
                range: { from: 2, to: 19 },
                totals: { path: total(23, 4), command: total(9, 1), error: total(2, 0), request: total(5, 3), tool: total(4, 2) },
                missing: [
                  { kind: 'path', value: `src/${evil}.ts`, entryIds: [3, 7] },
                  { kind: 'error', value: evil, entryIds: [12] },
                  { kind: 'tool', value: 'run_command', entryIds: [5] },
                ],
                missingOmitted: 29,
              },
              amendments: { pins: [25], pinnedFacts: [{ kind: 'tool', value: 'run_command' }], pinnedEntryIds: [5], summaryEntryId: null, undoneBy: null },
              amendable: { summary: 'The model summary.\n\nAlso in this range: npm test' },
            },
          ],
        });
      case 'entries':
        return ok({
          offset: p.offset,
          total: 30,
          rows: Array.from({ length: Math.max(0, Math.min(p.limit, 30 - p.offset)) }, (_, k) => ({
            entryId: p.offset + k + 1,
            kind: 'event',
            name: `e/${p.offset + k + 1}`,
            summary: `row ${p.offset + k + 1}`,
            createdAt: 0,
          })),
        });
      case 'entry':
        return ok({ entryId: p.entryId, entry: JSON.stringify({ entryId: p.entryId }) });
      case 'amendCompaction': {
        // The host refuses a summary that says "refuse", as the session handle refuses a bad amendment.
        const a = m.params as { anchorEntryId: number; amendment: { kind: string; summary?: string } };
        if (a.amendment.summary === 'refuse') return reply({ type: 'reply', id: m.id, ok: false, error: 'the new summary is empty' });
        return ok({ sessionId: 's1', entryId: 31, message: `appended ${a.amendment.kind} to #${a.anchorEntryId}` });
      }
      default:
        return undefined;
    }
  };
  w.host = answer;
}

describe('Tape Inspector webview in Chromium: compaction audits in Anchors', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    ({ page } = await openInspectorPage(browser, { host: fakeHost, arg: EVIL, viewport: { width: 1000, height: 640 }, errors }));
    await page.waitForSelector('vscode-tab-header[data-view=anchors]');
    await page.locator('vscode-tab-header[data-view=anchors]').click();
    await page.waitForSelector('.anchor[data-entry-id="20"] .audit');
  });
  after(async () => {
    assert.deepStrictEqual(errors, []);
    await browser?.close();
  });

  it('shows one line of what the summary kept, only on the compaction anchor', async () => {
    assert.strictEqual(
      await page.locator('.anchor[data-entry-id="20"] .audit-line').textContent(),
      'Summary of #2–#19: keeps 4 of 23 paths, 1 of 9 commands, 0 of 2 errors, 3 of 5 requests, 2 of 4 tools',
    );
    assert.strictEqual(await page.locator('.anchor[data-entry-id="1"] .audit').count(), 0);
    assert.strictEqual(await page.locator('.anchor[data-entry-id="20"] .audit-missing').getAttribute('open'), null);
  });

  it('opens the missing facts by keyboard; hostile values are text; an entry id reveals its entry', async () => {
    await tabTo(page, (el) => el.tagName === 'SUMMARY' && el.closest('.anchor')?.getAttribute('data-entry-id') === '20');
    await page.keyboard.press('Enter');
    const a20 = page.locator('.anchor[data-entry-id="20"]');
    await page.waitForSelector('.anchor[data-entry-id="20"] .audit-missing[open] .audit-group');
    assert.deepStrictEqual(await a20.locator('.audit-group h5').allTextContents(), ['Paths (1)', 'Errors (1)', 'Tools (1)']);
    assert.deepStrictEqual(await a20.locator('.audit-group .fact-value').allTextContents(), [`src/${EVIL}.ts`, EVIL, 'run_command']);
    assert.strictEqual(await page.locator('.audit img').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
    assert.strictEqual(await a20.locator('.audit-more').textContent(), 'and 29 more');
    assert.strictEqual(await a20.locator('.audit-missing > summary').textContent(), '32 facts not in the summary');

    await tabTo(page, (el) => el.getAttribute('aria-label') === 'Show entry #7 in Entries');
    await page.keyboard.press('Enter');
    await page.waitForSelector('vscode-tab-panel[data-view=entries]:not([hidden]) .vlist-row[data-entry-id="7"][aria-selected="true"]');
  });
  /** The amendCompaction requests the page sent since the last call. */
  const amendRequests = async (): Promise<unknown[]> =>
    page.evaluate(() => {
      const w = window as unknown as FakeWindow & { seen?: number };
      const all = w.posted.filter((m) => m.type === 'request' && m.method === 'amendCompaction');
      const fresh = all.slice(w.seen ?? 0);
      w.seen = all.length;
      return fresh.map((m) => (m as { params: unknown }).params);
    });

  it("shows each anchor's amendments; the amend buttons are only on the compaction in force", async () => {
    const a20 = page.locator('.anchor[data-entry-id="20"]');
    const a10 = page.locator('.anchor[data-entry-id="10"]');
    assert.strictEqual(await a20.locator('.amendments').textContent(), '1 pin #25');
    assert.strictEqual(await a10.locator('.amendments').textContent(), 'undone by #15');
    assert.deepStrictEqual(await a10.locator('.badge').allTextContents(), ['undone']);
    for (const sel of ['.amend-actions', 'button.pin', '.pin-actions']) {
      assert.strictEqual(await a10.locator(sel).count(), 0, `${sel} not on the undone compaction`);
      assert.strictEqual(await page.locator(`.anchor[data-entry-id="1"] ${sel}`).count(), 0, `${sel} not on session/start`);
    }
    assert.deepStrictEqual(await a20.locator('.amend-actions vscode-button').allTextContents(), ['Edit Summary…', 'Undo Compaction']);
    // run_command is pinned already and so is its one entry: badges, not buttons.
    const tool = a20.locator('.audit-facts li[data-kind="tool"]');
    assert.deepStrictEqual(await tool.locator('.badge').allTextContents(), ['pinned', 'entries pinned']);
    assert.strictEqual(await tool.locator('button.pin').count(), 0);
    assert.deepStrictEqual(await a20.locator('.audit-facts li[data-kind="path"] button.pin').allTextContents(), ['Pin', 'Pin Entries']);
    assert.deepStrictEqual(await amendRequests(), []);
  });

  /** Back on Anchors (an entry id revealed its entry in Entries), the missing facts of #20 open. */
  async function showAnchors(): Promise<void> {
    await page.locator('vscode-tab-header[data-view=anchors]').click();
    await page.waitForSelector('vscode-tab-panel[data-view=anchors]:not([hidden]) .anchor[data-entry-id="20"]');
    const details = page.locator('.anchor[data-entry-id="20"] .audit-missing');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  }

  it('Pin and Pin Entries ask for one amendment of the compaction shown, and say what the host answered', async () => {
    await showAnchors();
    const path = page.locator('.anchor[data-entry-id="20"] .audit-facts li[data-kind="path"]');
    await path.locator('button.pin-fact').click();
    await page.waitForSelector('.anchor[data-entry-id="20"] .amend-status');
    assert.deepStrictEqual(await amendRequests(), [{ anchorEntryId: 20, amendment: { kind: 'pin', facts: [{ kind: 'path', value: `src/${EVIL}.ts` }] } }]);
    assert.strictEqual(await page.locator('.anchor[data-entry-id="20"] .amend-status').textContent(), 'appended pin to #20');
    await page.locator('.anchor[data-entry-id="20"] .audit-facts li[data-kind="path"] button.pin-entries').click();
    await page.waitForFunction(
      () => (window as unknown as FakeWindow).posted.filter((m) => m.type === 'request' && m.method === 'amendCompaction').length === 2,
    );
    assert.deepStrictEqual(await amendRequests(), [{ anchorEntryId: 20, amendment: { kind: 'pin', entryIds: [3, 7] } }]);
    assert.strictEqual(await page.locator('.audit img').count(), 0);
  });

  it('Edit Summary… by keyboard: pre-filled with the summary in force, Escape cancels, Ctrl+Enter saves; a refusal keeps the text', async () => {
    const a20 = page.locator('.anchor[data-entry-id="20"]');
    await a20.locator('vscode-button.edit-summary').focus();
    await page.keyboard.press('Enter');
    const editor = a20.locator('textarea.summary-editor');
    await editor.waitFor();
    assert.strictEqual(await editor.inputValue(), 'The model summary.\n\nAlso in this range: npm test');
    await page.waitForFunction(() => document.activeElement?.classList.contains('summary-editor'), undefined, { timeout: 5000 });
    await page.keyboard.type(' more');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.summary-editor', { state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.classList.contains('edit-summary'), undefined, { timeout: 5000 });
    assert.deepStrictEqual(await amendRequests(), [], 'Escape sent nothing');

    await page.keyboard.press('Enter');
    await editor.waitFor();
    await editor.fill('refuse');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.anchor[data-entry-id="20"] .amend-status.failed');
    assert.strictEqual(await a20.locator('.amend-status').textContent(), 'Not amended: the new summary is empty');
    assert.strictEqual(await editor.inputValue(), 'refuse', 'the editor stays open with the text');
    assert.deepStrictEqual(await amendRequests(), [{ anchorEntryId: 20, amendment: { kind: 'edit', summary: 'refuse' } }]);

    await editor.fill('Fixing the parser; `npm test` fails.');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.summary-editor', { state: 'detached' });
    assert.deepStrictEqual(await amendRequests(), [{ anchorEntryId: 20, amendment: { kind: 'edit', summary: 'Fixing the parser; `npm test` fails.' } }]);
    assert.strictEqual(await a20.locator('.amend-status').textContent(), 'appended edit to #20');
  });

  it('Undo Compaction asks the host (which confirms) for an undo of the compaction shown', async () => {
    await page.locator('.anchor[data-entry-id="20"] vscode-button.undo-compaction').click();
    await page.waitForFunction(() => document.querySelector('.anchor[data-entry-id="20"] .amend-status')?.textContent === 'appended undo to #20');
    assert.deepStrictEqual(await amendRequests(), [{ anchorEntryId: 20, amendment: { kind: 'undo' } }]);
  });

  it('showAnchor opens Anchors on that anchor, scrolled to and focused', async () => {
    await page.locator('vscode-tab-header[data-view=entries]').click();
    await page.evaluate(() => window.postMessage({ type: 'showAnchor', sessionId: 's1', entryId: 10 }, '*'));
    await page.waitForSelector('vscode-tab-panel[data-view=anchors]:not([hidden]) .anchor.selected[data-entry-id="10"]');
    assert.ok(await page.locator('.anchor[data-entry-id="10"]').evaluate((el) => el === document.activeElement));
  });

  it('in a read-only window nothing amends', async () => {
    await page.evaluate(() =>
      window.postMessage(
        {
          type: 'source',
          label: 'Workspace tape',
          readOnly: true,
          headEntryId: 30,
          sessionId: 's1',
          sessions: [{ sessionId: 's1', title: 'audit', entryCount: 30, lastCreatedAt: 0 }],
        },
        '*',
      ),
    );
    await page.waitForSelector('.amend-actions', { state: 'detached' });
    for (const sel of ['button.pin', '.pin-actions', '.summary-editor', 'vscode-button.edit-summary'])
      assert.strictEqual(await page.locator(sel).count(), 0, sel);
    assert.strictEqual(await page.locator('.anchor[data-entry-id="20"] .audit-line').count(), 1, 'the audit is still shown');
  });
});
