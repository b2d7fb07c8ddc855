import * as assert from 'assert';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/vscodeServer';
import { webviewPageUrl } from '../support/webviewPage';

const root = path.resolve(__dirname, '../../..');
const EVIL = '<img src=x onerror="window.__pwned=1">';

interface FakeWindow {
  posted: InspectorToHost[];
  __pwned?: number;
}

/** A fake host whose session has one compaction anchor with an audit; fact values carry markup. */
function fakeHost(evil: string): void {
  const w = window as unknown as FakeWindow & { acquireVsCodeApi: () => unknown };
  w.posted = [];
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
      default:
        return undefined;
    }
  };
  w.acquireVsCodeApi = () => ({
    postMessage: (m: InspectorToHost) => {
      w.posted.push(m);
      answer(m);
    },
    getState: () => undefined,
    setState: () => undefined,
  });
}

/** Presses Tab until the focused element matches, as a keyboard user would. */
async function tabTo(page: Page, matches: (el: Element) => boolean, limit = 40): Promise<void> {
  const fn = matches.toString();
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (
      await page.evaluate((src) => {
        const el = document.activeElement;
        return el !== null && (new Function(`return (${src})`)() as (e: Element) => boolean)(el);
      }, fn)
    )
      return;
  }
  throw new Error('focus never reached the element by Tab');
}

describe('Tape Inspector webview in Chromium: compaction audits in Anchors', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const url = webviewPageUrl(root, {
      title: 'Tape Inspector',
      nonce: 'testnonce123',
      script: 'dist/inspector.js',
      style: 'media/inspector.css',
      codicons: true,
    });
    page = await browser.newPage({ viewport: { width: 1000, height: 640 } });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    await page.addInitScript(fakeHost, EVIL);
    await page.goto(url);
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
    assert.strictEqual(await page.locator('.audit-missing').getAttribute('open'), null);
  });

  it('opens the missing facts by keyboard; hostile values are text; an entry id reveals its entry', async () => {
    await tabTo(page, (el) => el.tagName === 'SUMMARY');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.audit-missing[open] .audit-group');
    assert.deepStrictEqual(await page.locator('.audit-group h5').allTextContents(), ['Paths (1)', 'Errors (1)', 'Tools (1)']);
    assert.deepStrictEqual(await page.locator('.audit-group .fact-value').allTextContents(), [`src/${EVIL}.ts`, EVIL, 'run_command']);
    assert.strictEqual(await page.locator('.audit img').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
    assert.strictEqual(await page.locator('.audit-more').textContent(), 'and 29 more');
    assert.strictEqual(await page.locator('.audit-missing > summary').textContent(), '32 facts not in the summary');

    await tabTo(page, (el) => el.getAttribute('aria-label') === 'Show entry #7 in Entries');
    await page.keyboard.press('Enter');
    await page.waitForSelector('vscode-tab-panel[data-view=entries]:not([hidden]) .vlist-row[data-entry-id="7"][aria-selected="true"]');
  });
});
