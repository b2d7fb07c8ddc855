import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { LineageView } from '../../src/protocol/inspector';
import { launchChromium, openInspectorPage, root, type StubWindow } from './inspectorPageFixture';
import { contrastOf, wearTheme, WEBVIEW_THEMES, type ThemeKey } from './webviewThemes';

const shots = path.join(root, 'test-results');
const TOTAL = 100_000;
const PARENT = 'claude-code:5b0c1d2e-0000-4000-8000-000000000001';
const SUBAGENT = `${PARENT}/agent-a1b2c3d4e5f6`;
const TASK =
  'Look through test/ for the test that fails one run in ten. Run the suite a few times with --repeat, then report its name, the assertion that fails and why it depends on timing.';

/** An ingested Claude Code session's relatives, as the host's lineageView sends them. */
const LINEAGE: LineageView = {
  ancestors: [{ sessionId: PARENT, title: 'Fix the failing parser test', relation: 'root', at: null }],
  children: [
    {
      sessionId: SUBAGENT,
      title: 'Find the flaky test',
      task: TASK,
      relation: 'subagent',
      state: 'linked',
      receipt: `Linked subagent ${SUBAGENT} (completed), frozen at #41. It is lexer.test.ts: a timeout of 10 ms.`,
      receiptEntryId: 22,
    },
    {
      sessionId: `${PARENT}::fork::rewrite`,
      title: 'Fix the failing parser test',
      task: null,
      relation: 'fork',
      state: 'open',
      receipt: '',
      receiptEntryId: null,
    },
    {
      sessionId: `${PARENT}::fork::docs`,
      title: 'Fix the failing parser test',
      task: null,
      relation: 'fork',
      state: 'merged',
      receipt: 'Merged fork "docs" up to its #12: 4 entries; the parent had not moved on since #60.',
      receiptEntryId: 64,
    },
    {
      sessionId: `${PARENT}::fork::risky`,
      title: 'Fix the failing parser test',
      task: null,
      relation: 'fork',
      state: 'discarded',
      receipt: 'Discarded fork "risky" at its #3: went nowhere',
      receiptEntryId: 65,
    },
  ],
  receipts: [
    {
      entryId: 22,
      name: 'subagent/linked',
      createdAt: Date.UTC(2026, 1, 14, 9, 31),
      summary: 'Linked subagent (completed), frozen at #41.',
      aboutSessionId: SUBAGENT,
    },
    {
      entryId: 64,
      name: 'fork/merge',
      createdAt: Date.UTC(2026, 1, 14, 9, 40),
      summary: 'Merged fork "docs" up to its #12.',
      aboutSessionId: `${PARENT}::fork::docs`,
    },
  ],
};

/**
 * A host for one long ingested session: entries with names and previews as long as real ones
 * (rows computed per index, never stored) and the lineage above; nothing else is asked for here.
 */
function fakeHost(o: { total: number; parent: string; lineage: unknown }): void {
  const w = window as unknown as StubWindow;
  const shapes = [
    ['anchor', 'session/start'],
    ['message', 'message/user'],
    ['message', 'message/assistant'],
    ['event', 'provider/attempt'],
    ['tool_call', 'Read'],
    ['tool_result', 'Read'],
    ['event', 'claude-code/system/turn_duration'],
    ['event', 'claude-code/thinking'],
    ['anchor', 'compaction/auto'],
    ['event', 'subagent/linked'],
  ] as const;
  const row = (i: number) => ({
    entryId: i + 1,
    kind: shapes[i % shapes.length][0],
    name: shapes[i % shapes.length][1],
    summary: `${i + 1}: I'll read the parser's tests first, then run them with --repeat to see which one fails only sometimes; the lexer's timeout looks suspicious and so does the fixture.`,
    createdAt: Date.UTC(2026, 1, 14, 9, 30) + i * 1000,
  });
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const answer = (m: { type: string; id?: number; method?: string; params?: { offset: number; limit: number; entryId: number } }): void => {
    if (m.type === 'ready') {
      reply({
        type: 'source',
        label: 'Workspace tape',
        readOnly: true,
        headEntryId: o.total,
        sessionId: o.parent,
        sessions: [{ sessionId: o.parent, title: 'Fix the failing parser test', entryCount: o.total, lastCreatedAt: 0 }],
      });
      reply({ type: 'transcript', sessionId: o.parent, headEntryId: o.total, offset: 0, total: 0, items: [] });
      return;
    }
    if (m.type !== 'request' || !m.params) return;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    const p = m.params;
    if (m.method === 'entries')
      ok({ offset: p.offset, total: o.total, rows: Array.from({ length: Math.max(0, Math.min(p.limit, o.total - p.offset)) }, (_, k) => row(p.offset + k)) });
    if (m.method === 'entry') {
      const r = row(p.entryId - 1);
      ok({ entryId: p.entryId, entry: JSON.stringify({ sessionId: o.parent, ...r, provenanceKey: null, payload: { content: r.summary }, meta: {} }) });
    }
    if (m.method === 'lineage') ok({ sessionId: o.parent, view: o.lineage });
  };
  w.host = answer as StubWindow['host'];
}

async function openPage(browser: Browser, view: 'entries' | 'lineage', width: number): Promise<Page> {
  const { page, errors: problems } = await openInspectorPage(browser, {
    host: fakeHost,
    arg: { total: TOTAL, parent: PARENT, lineage: LINEAGE },
    viewport: { width, height: 800 },
  });
  await wearTheme(page, 'dark');
  await page.locator(`vscode-tab-header[data-view=${view}]`).click();
  await page.waitForSelector(view === 'entries' ? '.vlist-row[data-entry-id]' : '.lineage-children .child');
  assert.deepStrictEqual(problems, []);
  assert.strictEqual(await page.locator('.banner').isHidden(), true, 'every message passed the protocol');
  return page;
}

/** Where each drawn row's columns are, in pixels, and whether any text in it is cut. */
function measureRows(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element) => el.getBoundingClientRect();
    const probe = document.createElement('span');
    probe.textContent = '0'.repeat(10);
    document.querySelector('.vlist')?.append(probe);
    const ch = box(probe).width / 10;
    probe.remove();
    const list = box(document.querySelector('.vlist') as Element);
    return {
      ch,
      rows: Array.from(document.querySelectorAll<HTMLElement>('.vlist-row[data-entry-id]'))
        .filter((r) => box(r).bottom > list.top && box(r).top < list.bottom)
        .map((r) => {
          const cell = (c: string) => r.querySelector(`.col-${c}`) as HTMLElement;
          const rowBox = box(r);
          const inner = rowBox.right - parseFloat(getComputedStyle(r).paddingRight);
          const whole = (c: string) => cell(c).scrollWidth <= cell(c).clientWidth && box(cell(c)).right <= inner + 0.5 && box(cell(c)).width > 0;
          return {
            entryId: Number(r.dataset.entryId),
            overflows: r.scrollWidth > r.clientWidth,
            whole: { id: whole('id'), kind: whole('kind'), time: whole('time') },
            summaryWidth: box(cell('summary')).width,
            summaryLeft: box(cell('summary')).left,
            timeLeft: box(cell('time')).left,
            summaryTitle: cell('summary').title,
            summaryText: cell('summary').textContent ?? '',
            timeShown: cell('time').innerText,
            timeTitle: cell('time').title,
          };
        }),
    };
  });
}

describe('Tape Inspector at the widths of an editor, in VS Code themes (Chromium)', function () {
  let browser: Browser;
  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    browser = await launchChromium();
  });
  after(() => browser?.close());

  for (const width of [500, 750, 1100, 1400]) {
    it(`Entries at ${width} px: every row's preview has room, no id, kind or date is cut, the columns line up, at the start and the end of ${TOTAL.toLocaleString('en-US')} entries`, async () => {
      const page = await openPage(browser, 'entries', width);
      let shown = 0;
      for (const end of [false, true]) {
        if (end) {
          await page.locator('.vlist').evaluate((el) => {
            el.scrollTop = el.scrollHeight;
          });
          await page.waitForSelector(`.vlist-row[data-entry-id="${TOTAL}"]`);
        }
        await page.waitForTimeout(50);
        const { ch, rows } = await measureRows(page);
        assert.ok(rows.length >= 10, `${rows.length} rows on screen`);
        if (end) assert.strictEqual(Math.max(...rows.map((r) => r.entryId)), TOTAL);
        for (const r of rows) {
          const at = `row #${r.entryId} at ${width} px`;
          assert.strictEqual(r.overflows, false, `${at}: nothing runs past the row`);
          assert.deepStrictEqual(r.whole, { id: true, kind: true, time: true }, at);
          assert.ok(r.summaryWidth >= 12 * ch - 0.5, `${at}: the preview is ${(r.summaryWidth / ch).toFixed(1)} characters wide`);
          assert.strictEqual(r.summaryTitle, r.summaryText, `${at}: the whole preview is its tooltip`);
          // The date is whole: the year gives way only where the list is narrow, the tooltip keeps it.
          assert.match(r.timeShown, width >= 750 ? /^2026-02-\d\d \d\d:\d\d:\d\dZ$/ : /^02-\d\d \d\d:\d\d:\d\dZ$/, at);
          assert.match(r.timeTitle, /^2026-02-\d\d \d\d:\d\d:\d\dZ$/);
        }
        shown = rows[3].entryId;
        const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
        assert.ok(spread(rows.map((r) => r.summaryLeft)) < 0.5 && spread(rows.map((r) => r.timeLeft)) < 0.5, 'the previews and times start at one x');
        console.log(
          `      ${width} px${end ? ', at the end' : ''}: previews ${(rows[0].summaryWidth / ch).toFixed(1)} characters wide (${rows[0].summaryWidth.toFixed(0)} px)`,
        );
      }

      // The entry's JSON: beside the list where there is room, below it (still on screen) where there is not.
      await page.locator(`.vlist-row[data-entry-id="${shown}"]`).click();
      await page.waitForSelector('#entry-detail pre:not([aria-busy])');
      const [list, detail] = await Promise.all(
        ['.vlist', '#entry-detail'].map((s) => page.locator(s).evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect)),
      );
      if (width >= 1400) {
        assert.ok(detail.left >= list.right && Math.abs(detail.top - list.top) < 2, `the JSON beside the list: ${JSON.stringify({ list, detail })}`);
      } else {
        assert.ok(detail.top >= list.bottom && Math.abs(detail.left - list.left) < 2, `the JSON below the list: ${JSON.stringify({ list, detail })}`);
        assert.ok(detail.top + 60 <= 800, `the JSON starts on screen, at ${detail.top}`);
      }
      await page.screenshot({ path: path.join(shots, `inspector-entries-${width}px-dark.png`) });
      await page.close();
    });
  }

  it('Lineage names each subagent by its task, with its state and receipt, readable (contrast ≥ 4.5) in light, dark and high-contrast themes', async () => {
    const page = await openPage(browser, 'lineage', 750);
    const sub = page.locator('.lineage-children .child').first();
    assert.strictEqual(await sub.locator('.session-ref').textContent(), 'Find the flaky test (subagent a1b2c3d4)');
    assert.deepStrictEqual(await sub.locator('.badge').allTextContents(), ['linked', 'subagent']);
    assert.strictEqual(await sub.locator('.receipt-ref').textContent(), 'receipt #22');
    assert.strictEqual(await sub.locator('.child-task').textContent(), TASK);
    assert.deepStrictEqual(await page.locator('.lineage-children .child').evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))), [
      'linked',
      'open',
      'merged',
      'discarded',
    ]);
    assert.strictEqual(
      await page.locator('.lineage-children .child').nth(1).locator('.child-task, .receipt-ref').count(),
      0,
      'an open fork has no task or receipt',
    );

    for (const theme of Object.keys(WEBVIEW_THEMES) as ThemeKey[]) {
      await wearTheme(page, theme);
      const readings = await contrastOf(page, '.lineage *');
      assert.ok(readings.length >= 20, `${readings.length} texts measured`);
      const worst = readings.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      assert.ok(worst.ratio >= 4.5, `${WEBVIEW_THEMES[theme].name}: "${worst.text}" is ${worst.color} on ${worst.background}, ${worst.ratio.toFixed(2)}:1`);
      const of = (text: string) => readings.find((r) => r.text === text)?.ratio.toFixed(2);
      console.log(
        `      ${WEBVIEW_THEMES[theme].name}: lowest ${worst.ratio.toFixed(2)}:1 ("${worst.text.slice(0, 30)}"); title ${of('Find the flaky test (subagent a1b2c3d4)')}, state ${of('linked')}, receipt ${of('receipt #22')}`,
      );
      // No card is a solid block: each lies on the editor's background.
      const editor = WEBVIEW_THEMES[theme].vars['editor-background'];
      assert.deepStrictEqual(
        new Set(await page.locator('.lineage-children .child').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor))),
        new Set(['rgba(0, 0, 0, 0)']),
        `cards are transparent over ${editor}`,
      );
      await page.screenshot({ path: path.join(shots, `inspector-lineage-${theme}.png`) });
    }
    await page.close();
  });

  it('takes screenshots of Entries at 750 px in each theme', async () => {
    const page = await openPage(browser, 'entries', 750);
    await page.locator('.vlist-row[data-entry-id="3"]').click();
    await page.waitForSelector('#entry-detail pre:not([aria-busy])');
    for (const theme of Object.keys(WEBVIEW_THEMES) as ThemeKey[]) {
      await wearTheme(page, theme);
      const worst = (await contrastOf(page, '.vlist-row *')).reduce((a, b) => (b.ratio < a.ratio ? b : a));
      assert.ok(worst.ratio >= 4.5, `${WEBVIEW_THEMES[theme].name}: "${worst.text}" is ${worst.color} on ${worst.background}, ${worst.ratio.toFixed(2)}:1`);
      await page.screenshot({ path: path.join(shots, `inspector-entries-${theme}.png`) });
    }
    await page.close();
  });
});
