import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { HostToInspector, InspectorToHost } from '../../src/protocol/inspector';
import { fromHost, launchChromium, openInspectorPage, posted, root, tabTo, type StubWindow } from './inspectorPageFixture';

const TOTAL = 100_000;
/** Messages in the fake transcript: the host sends the last 200, the rest come by request. */
const MESSAGES = 450;
const LAST_PAGE = 200;
const EVIL = '<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1"> <a href="javascript:window.__pwned=1">x</a>';

interface FakeWindow extends StubWindow {
  __pwned?: number;
  fake: { appended: number };
}

/**
 * The fake host, run inside the page before the bundle: it answers the inspector's requests from a
 * generated tape of `total` entries (rows are computed per index, never stored), records every
 * message the page sends, and keeps setState's value where the test can read it.
 */
function fakeHost(o: { total: number; messages: number; lastPage: number; evil: string; state: unknown; attemptRows: boolean }): void {
  const w = window as unknown as FakeWindow;
  const kinds = ['message', 'system', 'tool_call', 'tool_result', 'error', 'anchor', 'event'] as const;
  w.savedState = o.state;
  w.fake = { appended: 0 };
  const total = () => o.total + w.fake.appended;
  const row = (i: number) => ({
    entryId: i + 1,
    kind: kinds[i % kinds.length],
    name: `${kinds[i % kinds.length]}/n${i % 5}`,
    summary: i === 2 ? o.evil : `row ${i + 1}`,
    createdAt: Date.UTC(2025, 0, 1) + i * 1000,
  });
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const item = (n: number, text: string) => ({
    entryId: n * 3,
    messageId: `m${n}`,
    role: n % 2 ? 'user' : 'assistant',
    status: 'sent',
    text,
    cut: false,
    markers: n === 2 ? ['revised', 'compacted'] : [],
    entryIds: [n * 3, n * 3 + 1],
    toolCalls: n === 2 ? [{ entryId: 7, name: 'run_command', summary: o.evil, resultStatus: 'error', resultEntryId: 8 }] : [],
  });
  // Earlier messages e0, e1, … then the three the tests look at: m1, m2 (markup, markers, a tool call), m3.
  const message = (i: number) => {
    const last = i - (o.messages - 3) + 1;
    if (last >= 1) return item(last, ['Hello', o.evil, 'Done'][last - 1]);
    return { ...item(0, `earlier ${i}`), entryId: 10 + i, messageId: `e${i}`, entryIds: [10 + i] };
  };
  const transcript = (offset: number, limit: number) => ({
    sessionId: 's1',
    headEntryId: total(),
    offset,
    total: o.messages,
    items: Array.from({ length: Math.max(0, Math.min(limit, o.messages - offset)) }, (_, k) => message(offset + k)),
  });
  const req = (n: number) => ({
    source: 'manifest' as const,
    entryId: 100 + n,
    turnId: 't1',
    requestSeq: n,
    model: 'gpt-test',
    assembledAt: Date.UTC(2025, 0, 1) + n,
    estimatedPrompt: 1000 * n,
    included: 10 * n,
    excluded: 0,
    anchorEntryId: 1,
    attempts: 1,
    durationMs: 1200 + n,
    inputTokens: 1000 * n + 5,
    outputTokens: 50,
    cachedTokens: n > 1 ? 800 * (n - 1) : 0,
    cacheCreationTokens: null,
    promptTokens: 1000 * n + 5,
    cacheHitShare: n > 1 ? (800 * (n - 1)) / (1000 * n + 5) : 0,
  });
  // Another agent's model calls, as an ingested session has them: no manifest, the source's usage.
  const attemptReq = (n: number) => ({
    ...req(n),
    source: 'attempt' as const,
    turnId: null,
    requestSeq: null,
    model: 'claude-opus-4',
    estimatedPrompt: null,
    included: null,
    excluded: null,
    anchorEntryId: null,
    inputTokens: 10 * n,
    cachedTokens: 9_000 * n,
    cacheCreationTokens: 990 * n,
    promptTokens: 10_000 * n,
    cacheHitShare: 0.9,
  });
  const answer = (m: InspectorToHost) => {
    if (m.type === 'ready' || m.type === 'selectSession') {
      reply({
        type: 'source',
        label: 'tape: demo.tape.jsonl',
        readOnly: true,
        headEntryId: total(),
        sessionId: m.type === 'selectSession' ? m.sessionId : 's1',
        sessions: [
          { sessionId: 's1', title: 'First session', entryCount: total(), lastCreatedAt: 0 },
          { sessionId: 's2', title: null, entryCount: 3, lastCreatedAt: 0 },
        ],
      });
      // As InspectorController does: a source that selects a session comes with the transcript's last page.
      return reply({ type: 'transcript', ...transcript(o.messages - o.lastPage, o.lastPage) });
    }
    if (m.type !== 'request') return undefined;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    const p = m.params as { offset: number; limit: number; entryId: number; a: number; b: number; filter: { kinds?: string[]; name?: string } };
    switch (m.method) {
      case 'anchors':
        return ok({
          sessionId: 's1',
          items: [
            {
              entryId: 1,
              name: 'session/start',
              createdAt: 0,
              inForce: false,
              state: '{"sessionId":"s1"}',
              checkpoint: null,
              audit: null,
              amendments: null,
              amendable: null,
            },
            {
              entryId: 40,
              name: 'handoff/next',
              createdAt: 5000,
              inForce: true,
              state: '{"summary":"did things","files":["a.ts"]}',
              checkpoint: 'Summary so far: did things',
              audit: null,
              amendments: null,
              amendable: null,
            },
          ],
        });
      case 'requests':
        return ok({ sessionId: 's1', items: o.attemptRows ? [attemptReq(1), attemptReq(2)] : [req(1), req(2), req(3)] });
      case 'projections':
        return ok({
          sessionId: 's1',
          view: {
            title: 'Fix the build',
            todos: [
              { content: 'Write tests', status: 'completed' },
              { content: 'Ship', status: 'pending' },
            ],
            toolStats: [{ name: 'read_file', calls: 5, ok: 4, error: 1, pending: 0 }],
            tokenUsage: { attempts: 3, inputTokens: 6015, outputTokens: 150, cachedTokens: 2400 },
            contextPressure: { estimatedTokens: 54000, contextWindow: 128000, ratio: 54000 / 128000, windowSource: 'assumed', model: 'gpt-unknown' },
          },
        });
      case 'transcript':
        return ok(transcript(p.offset, p.limit));
      case 'entries': {
        const f = p.filter;
        const pass = (i: number) => {
          const r = row(i);
          return (!f.kinds || f.kinds.includes(r.kind)) && (!f.name || r.name.startsWith(f.name));
        };
        const matching: number[] = [];
        for (let i = 0; i < total(); i++) if (pass(i)) matching.push(i);
        return ok({ offset: p.offset, total: matching.length, rows: matching.slice(p.offset, p.offset + p.limit).map(row) });
      }
      case 'entry': {
        const r = row(p.entryId - 1);
        return ok({
          entryId: p.entryId,
          entry: JSON.stringify({
            sessionId: 's1',
            entryId: r.entryId,
            kind: r.kind,
            name: r.name,
            provenanceKey: null,
            payload: { content: r.summary },
            meta: {},
            createdAt: r.createdAt,
          }),
        });
      }
      case 'diff':
        return ok({
          a: p.a,
          b: p.b,
          added: [
            { entryId: 201, role: 'user', reason: 'new', tokens: 40 },
            { entryId: 202, role: 'tool', reason: 'new', tokens: 1194 },
          ],
          removed: [{ entryId: 150, role: 'tool', reason: 'budget', tokens: 300, excludedAs: 'over budget' }],
          reasonChanges: [],
          anchor: null,
          policy: null,
          model: { from: 'gpt-a', to: 'gpt-test' },
          promptChanged: false,
          toolsChanged: true,
          tokens: { estimatedPrompt: { from: 2000, to: 3234, delta: 1234 }, included: { from: 20, to: 21, delta: 1 } },
          unchangedPrefix: { items: 17, tokens: 1800 },
        });
      default:
        return undefined;
    }
  };
  w.host = answer;
}

interface Opened {
  page: Page;
  cspErrors: string[];
}

async function openPage(browser: Browser, state: unknown = undefined, attemptRows = false): Promise<Opened> {
  const { page, errors: cspErrors } = await openInspectorPage(browser, {
    host: fakeHost,
    arg: { total: TOTAL, messages: MESSAGES, lastPage: LAST_PAGE, evil: EVIL, state, attemptRows },
    viewport: { width: 1100, height: 760 },
  });
  await page.waitForSelector('.source-label:has-text("demo.tape")');
  return { page, cspErrors };
}

/** The params of each request for `method` the page sent, in order. */
const asked = async (page: Page, method: string) => (await posted(page)).flatMap((m) => (m.type === 'request' && m.method === method ? [m.params] : []));
const activeView = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-view') ?? '');
const entriesState = (view: string, extra: Record<string, unknown> = {}) => ({
  view,
  sessionId: 's1',
  filter: {},
  selectedEntryId: null,
  scrollTop: 0,
  ...extra,
});

async function rowsShown(page: Page) {
  return page.$$eval('.vlist-row', (rows) =>
    rows.map((r) => ({ index: Number((r as HTMLElement).dataset.index), entryId: (r as HTMLElement).dataset.entryId, text: r.textContent ?? '' })),
  );
}

describe('Tape Inspector webview in Chromium', function () {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  it('renders its components under the strict CSP and says ready', async () => {
    const { page, cspErrors } = await openPage(browser);
    await page.waitForSelector('.transcript-item');
    // The transcript came with the source: it is not asked for a second time.
    assert.deepStrictEqual(
      (await posted(page)).filter((m) => !(m.type === 'request' && m.method === 'entries')),
      [{ type: 'ready' }],
    );
    // Lit's constructable stylesheets apply: the tab header is laid out by its shadow styles.
    assert.ok(await page.evaluate(() => (document.querySelector('vscode-tab-header')?.shadowRoot?.adoptedStyleSheets.length ?? 0) > 0));
    assert.strictEqual(await page.locator('.marker-read-only').isVisible(), true);
    assert.deepStrictEqual(cspErrors, []);
  });

  it('switches views by keyboard only, then selects an entry with the keyboard and reads its JSON', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item');
    await tabTo(page, (el) => el.tagName === 'VSCODE-TAB-HEADER');
    assert.strictEqual(await activeView(page), 'transcript');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.waitForSelector('vscode-tab-panel[data-view=anchors]:not([hidden]) .anchor');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await page.waitForSelector('vscode-tab-panel[data-view=entries]:not([hidden]) .vlist-row[data-entry-id="1"]');
    assert.strictEqual(await page.locator('vscode-tab-panel[data-view=transcript]').isHidden(), true);

    await tabTo(page, (el) => el.getAttribute('role') === 'listbox');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    assert.strictEqual(await page.locator('.vlist').getAttribute('aria-activedescendant'), 'entry-row-2');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#entry-detail pre:not([aria-busy])');
    const detail = JSON.parse((await page.locator('#entry-detail pre').textContent()) ?? '') as { entryId: number; kind: string };
    assert.deepStrictEqual([detail.entryId, detail.kind], [3, 'tool_call']);
    assert.match((await page.locator('#entry-detail pre').textContent()) ?? '', /\n {2}"entryId": 3,/, 'pretty-printed');

    await page.locator('#entry-detail vscode-button').click();
    assert.deepStrictEqual((await posted(page)).at(-1), { type: 'copy', text: JSON.stringify(detail, null, 2) });
  });

  it(`keeps at most 200 row elements over ${TOTAL.toLocaleString('en-US')} rows while scrolling to the end, rows matching the offset`, async () => {
    const { page } = await openPage(browser, entriesState('entries'));
    await page.waitForSelector('.vlist-row[data-entry-id="1"]');
    const list = page.locator('.vlist');
    for (const fraction of [0.1, 0.37, 0.5, 0.82, 1]) {
      const top = await list.evaluate((el, f) => {
        el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
        return el.scrollTop;
      }, fraction);
      const first = Math.floor(top / 22);
      await page.waitForSelector(`.vlist-row[data-entry-id="${Math.min(TOTAL, first + 5)}"]`);
      const rows = await rowsShown(page);
      assert.ok(rows.length <= 200, `${rows.length} rows in the DOM`);
      assert.ok(
        rows.some((r) => r.index === first),
        `row ${first} is drawn at offset ${top}`,
      );
      for (const r of rows.filter((x) => x.entryId !== undefined)) {
        assert.strictEqual(Number(r.entryId), r.index + 1);
        assert.ok(r.text.startsWith(`#${r.index + 1}`), r.text);
      }
    }
    const rows = await rowsShown(page);
    assert.strictEqual(Math.max(...rows.map((r) => r.index)), TOTAL - 1);
    assert.ok(await page.locator(`.vlist-row[data-entry-id="${TOTAL}"]`).isVisible());
    const pages = await asked(page, 'entries');
    assert.ok(pages.length <= 15, `${pages.length} page requests, not one per row`);
  });

  it('SPEC 3.20: HTML and script in message text, tool output and entry rows show as text and run nothing', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item');
    const item = page.locator('.transcript-item[data-message-id="m2"]');
    assert.strictEqual(await item.locator('.text').textContent(), EVIL);
    assert.strictEqual(await item.locator('.tool-summary').textContent(), EVIL);
    assert.deepStrictEqual(await item.locator('.markers .badge').allTextContents(), ['revised', 'compacted']);
    await item.locator('.text').click({ position: { x: 5, y: 5 } });
    await page.locator('.transcript-item .text >> text=/>x</').first().click();
    await page.waitForSelector('#transcript-detail pre:not([aria-busy])');

    await page.locator('vscode-tab-header[data-view=entries]').click();
    await page.waitForSelector('.vlist-row[data-entry-id="3"]');
    assert.strictEqual(await page.locator('.vlist-row[data-entry-id="3"] .col-summary').textContent(), EVIL);
    await page.locator('.vlist-row[data-entry-id="3"]').click();
    await page.waitForSelector('#entry-detail pre:not([aria-busy])');
    assert.ok(((await page.locator('#entry-detail pre').textContent()) ?? '').includes('<img src=x onerror=\\"window.__pwned=1\\">'));

    assert.strictEqual(await page.locator('#app img, #app script, #app a').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
  });

  it('shows the exact diff the host sends for the last two requests, and for any other pair picked', async () => {
    const { page } = await openPage(browser, entriesState('requests'));
    await page.waitForSelector('.diff');
    assert.deepStrictEqual(await asked(page, 'diff'), [{ a: 102, b: 103 }]);
    assert.deepStrictEqual(await page.locator('.diff-added tbody tr td:first-child').allTextContents(), ['#201', '#202']);
    assert.deepStrictEqual(await page.locator('.diff-removed tbody tr td:first-child').allTextContents(), ['#150']);
    assert.strictEqual(await page.locator('.diff-removed tbody td').nth(3).textContent(), 'over budget');
    assert.strictEqual(await page.locator('[data-delta="estimatedPrompt"]').textContent(), '2,000 → 3,234 (+1,234)');
    assert.strictEqual(await page.locator('.unchanged-prefix').textContent(), 'Unchanged prefix: 17 items, 1,800 tokens a prompt cache can reuse');
    assert.match((await page.locator('.diff .changes').textContent()) ?? '', /Model: gpt-a → gpt-test.*Tools changed/);
    const label = (await page.locator('svg.plot').getAttribute('aria-label')) ?? '';
    assert.match(label, /Prompt tokens per request, 3 requests: from 1,005 to 3,005/);

    await page.locator('tr[data-entry-id="101"] vscode-checkbox').click();
    await page.waitForFunction(() => (window as unknown as FakeWindow).posted.filter((m) => m.type === 'request' && m.method === 'diff').length === 2);
    assert.deepStrictEqual((await asked(page, 'diff')).at(-1), { a: 101, b: 103 });
    await page.waitForSelector('.diff h3:has-text("#101 → #103")');
  });

  it("another agent's session: a row per model call with the source's figures and the totals, nothing to compare or re-run", async () => {
    const { page } = await openPage(browser, entriesState('requests'), true);
    await page.waitForSelector('tr[data-source="attempt"]');
    assert.strictEqual(await page.locator('tbody tr[data-source="attempt"]').count(), 2);
    assert.strictEqual(await page.locator('#requests-table vscode-checkbox, #requests-table .rerun').count(), 0);
    const cells = (sel: string) => page.locator(`${sel} td.n`).allTextContents();
    // Est. prompt, input, cached, cache writes, cache hit, output, attempts, duration.
    assert.deepStrictEqual(await cells('tr[data-entry-id="101"]'), ['—', '10', '9,000', '990', '90%', '50', '1', '1,201 ms']);
    assert.deepStrictEqual(await cells('tfoot tr.totals'), ['—', '30', '27,000', '2,970', '90%', '100', '2', '2,403 ms']);
    assert.match((await page.locator('.diff-slot').textContent()) ?? '', /recorded by another agent without the context it sent/);
    assert.match((await page.locator('svg.plot').getAttribute('aria-label')) ?? '', /2 requests: from 10,000 to 20,000/);
  });

  it('merges `appended` rows and transcript items without fetching everything again', async () => {
    const { page } = await openPage(browser, entriesState('entries'));
    await page.waitForSelector('.vlist-row[data-entry-id="1"]');
    await page.locator('.vlist').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForSelector(`.vlist-row[data-entry-id="${TOTAL}"]`);
    const scrollBefore = await page.locator('.vlist').evaluate((el) => el.scrollTop);
    await page.locator('vscode-tab-header[data-view=transcript]').click();
    await page.waitForSelector('.transcript-item');
    const before = (await posted(page)).length;

    await page.evaluate(() => {
      (window as unknown as FakeWindow).fake.appended = 2;
    });
    const newRows = [0, 1].map((i) => ({
      entryId: TOTAL + 1 + i,
      kind: 'message' as const,
      name: 'message/assistant',
      summary: `live ${i}`,
      createdAt: Date.UTC(2025, 1, 1),
    }));
    const changed = {
      entryId: TOTAL + 1,
      messageId: 'm3',
      role: 'user',
      status: 'sent',
      text: 'Done, revised',
      cut: false,
      markers: ['revised' as const],
      entryIds: [9, TOTAL + 1],
      toolCalls: [],
    };
    const added = {
      ...changed,
      entryId: TOTAL + 2,
      messageId: 'm4',
      role: 'assistant',
      status: 'pending',
      text: 'Working…',
      markers: ['pending' as const],
      entryIds: [TOTAL + 2],
    };
    // A change to a message the page does not hold (it was never asked for) is not news to show.
    const unheld = { ...changed, entryId: TOTAL + 1, messageId: 'e3', text: 'earlier, revised', entryIds: [13, TOTAL + 1] };
    await fromHost(page, {
      type: 'appended',
      sessionId: 's1',
      headEntryId: TOTAL + 2,
      rows: newRows,
      transcript: [unheld, changed, added],
    } satisfies HostToInspector);
    await page.waitForSelector('.transcript-item[data-message-id="m4"]');
    assert.strictEqual(await page.locator('.transcript-item').count(), LAST_PAGE + 1);
    assert.strictEqual(await page.locator('.transcript-item[data-message-id="e3"]').count(), 0);
    assert.strictEqual(await page.locator('.transcript-item').last().getAttribute('data-message-id'), 'm4');
    assert.strictEqual(await page.locator('.transcript-status').textContent(), `The last ${LAST_PAGE + 1} of ${MESSAGES + 1} messages.`);
    assert.strictEqual(await page.locator('.transcript-item[data-message-id="m3"] .text').textContent(), 'Done, revised');
    assert.deepStrictEqual(await page.locator('.transcript-item[data-message-id="m4"] .badge').allTextContents(), ['pending', 'pending']);

    await page.locator('vscode-tab-header[data-view=entries]').click();
    await page.waitForSelector(`.vlist-row[data-entry-id="${TOTAL + 2}"]`);
    assert.match((await page.locator('.filter-bar [role=status]').textContent()) ?? '', /100,002 entries/);
    assert.ok(Math.abs((await page.locator('.vlist').evaluate((el) => el.scrollTop)) - scrollBefore) < 1, 'scroll position kept');
    const after = (await posted(page)).slice(before);
    assert.deepStrictEqual(
      after.filter((m) => m.type === 'request' && ['entries', 'anchors', 'requests', 'projections', 'lineage'].includes(m.method)),
      [],
      'nothing asked again',
    );
  });

  it('opens the transcript on its last page; "Show earlier messages" by keyboard prepends pages and keeps what is on screen in place', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item[data-message-id="m3"]');
    const ids = () => page.locator('.transcript-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')));
    const first = MESSAGES - LAST_PAGE;
    assert.deepStrictEqual(await ids(), [...Array.from({ length: LAST_PAGE - 3 }, (_, i) => `e${first + i}`), 'm1', 'm2', 'm3']);
    assert.strictEqual(await page.locator('.transcript-status').textContent(), `The last ${LAST_PAGE} of ${MESSAGES} messages.`);
    const scroll = page.locator('.transcript-scroll');
    assert.ok(await scroll.evaluate((el) => el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 1), 'opens at the latest message');

    await tabTo(page, (el) => el.classList.contains('transcript-earlier'));
    const top = (id: string) => page.locator(`.transcript-item[data-message-id="${id}"]`).evaluate((el) => el.getBoundingClientRect().top);
    const before = await top(`e${first}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.transcript-item[data-message-id="e${first - LAST_PAGE}"]`);
    assert.ok(Math.abs((await top(`e${first}`)) - before) < 1, 'the item that was first stays where it was on screen');
    assert.deepStrictEqual(await asked(page, 'transcript'), [{ offset: first - LAST_PAGE, limit: LAST_PAGE }]);
    assert.strictEqual(await page.locator('.transcript-item').count(), 2 * LAST_PAGE);

    await page.locator('.transcript-earlier').focus();
    await page.keyboard.press(' ');
    await page.waitForSelector('.transcript-item[data-message-id="e0"]');
    assert.deepStrictEqual(await ids(), [...Array.from({ length: MESSAGES - 3 }, (_, i) => `e${i}`), 'm1', 'm2', 'm3']);
    assert.deepStrictEqual(await asked(page, 'transcript'), [
      { offset: first - LAST_PAGE, limit: LAST_PAGE },
      { offset: 0, limit: first - LAST_PAGE },
    ]);
    assert.strictEqual(await page.locator('.transcript-earlier').isHidden(), true);
    assert.strictEqual(await page.locator('.transcript-status').textContent(), '');
    assert.strictEqual(
      await page.evaluate(() => document.activeElement?.getAttribute('data-message-id')),
      'e0',
      'focus moves to the first message when the button goes',
    );

    // Everything is held now: any item the host calls changed or new is merged.
    await fromHost(page, {
      type: 'appended',
      sessionId: 's1',
      headEntryId: TOTAL + 1,
      rows: [],
      transcript: [
        {
          entryId: 13,
          messageId: 'e1',
          role: 'user',
          status: 'sent',
          text: 'earlier, revised',
          cut: false,
          markers: ['revised'],
          entryIds: [11, 13],
          toolCalls: [],
        },
      ],
    } satisfies HostToInspector);
    await page.waitForSelector('.transcript-item[data-message-id="e1"] .text:has-text("earlier, revised")');
    assert.strictEqual(await page.locator('.transcript-item').nth(1).getAttribute('data-message-id'), 'e1');
  });

  it('drops a late transcript page nobody asked for, and one of another session', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item[data-message-id="m3"]');
    const item = { entryId: 1, messageId: 'stale', role: 'user', status: 'sent', text: 'stale', cut: false, markers: [], entryIds: [1], toolCalls: [] };
    await fromHost(page, {
      type: 'reply',
      id: 4242,
      ok: true,
      result: { sessionId: 's1', headEntryId: 1, offset: 0, total: 1, items: [item] },
    } satisfies HostToInspector);
    await fromHost(page, { type: 'transcript', sessionId: 's2', headEntryId: 1, offset: 0, total: 1, items: [item] } satisfies HostToInspector);
    await page.waitForTimeout(50);
    assert.strictEqual(await page.locator('.transcript-item[data-message-id="stale"]').count(), 0);
    assert.strictEqual(await page.locator('.transcript-item').count(), LAST_PAGE);
  });

  it('drops a late reply to an old page request', async () => {
    const { page } = await openPage(browser, entriesState('entries'));
    await page.waitForSelector('.vlist-row[data-entry-id="1"]');
    await fromHost(page, {
      type: 'reply',
      id: 9999,
      ok: true,
      result: { offset: 0, total: 5, rows: [{ entryId: 1, kind: 'event', name: 'stale', summary: 'stale', createdAt: 0 }] },
    } satisfies HostToInspector);
    await page.waitForTimeout(50);
    assert.strictEqual(await page.locator('.vlist-row[data-entry-id="1"] .col-name').textContent(), 'message/n0');
    assert.match((await page.locator('.filter-bar [role=status]').textContent()) ?? '', /100,000 entries/);
  });

  it('shows a malformed host message as an error and changes nothing; `failed` replaces the views', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item');
    const html = await page.locator('.transcript').innerHTML();
    await fromHost(page, { type: 'transcript', sessionId: 's1', headEntryId: 1, offset: 0, total: 1, items: [{ entryId: 'one' }] });
    await page.waitForSelector('.banner:not([hidden])');
    assert.match(
      (await page.locator('.banner-text').textContent()) ?? '',
      /Unexpected message from the extension \(ignored\): ✖ .*\n {2}→ at items\[0\]\.entryId/,
    );
    assert.strictEqual(await page.locator('.transcript').innerHTML(), html);
    await page.locator('.banner vscode-button').click();
    assert.strictEqual(await page.locator('.banner').isHidden(), true);

    await fromHost(page, { type: 'error', message: 'export failed: <b>disk full</b>' });
    await page.waitForSelector('.banner:not([hidden])');
    assert.strictEqual(await page.locator('.banner-text').textContent(), 'export failed: <b>disk full</b>');

    await fromHost(page, { type: 'failed', message: 'line 3 of demo.tape.jsonl is not JSON' });
    await page.waitForSelector('.failed:not([hidden])');
    assert.strictEqual(await page.locator('.failed').textContent(), 'The tape could not be shown: line 3 of demo.tape.jsonl is not JSON');
    assert.strictEqual(await page.locator('vscode-tabs').isHidden(), true);
  });

  it('`reveal` switches to Entries and selects the entry', async () => {
    const { page } = await openPage(browser);
    await page.waitForSelector('.transcript-item');
    await fromHost(page, { type: 'reveal', entryId: 54321 });
    await page.waitForSelector('.vlist-row[data-entry-id="54321"][aria-selected="true"]');
    assert.strictEqual(await page.locator('vscode-tab-panel[data-view=entries]').isVisible(), true);
    await page.waitForSelector('#entry-detail pre:not([aria-busy])');
    assert.match((await page.locator('#entry-detail pre').textContent()) ?? '', /"entryId": 54321/);
  });

  it('restores the view, session, filter, selection and scroll offset after a reload', async () => {
    const first = await openPage(browser, entriesState('entries'));
    await first.page.waitForSelector('.vlist-row[data-entry-id="1"]');
    await first.page.locator('#filter-name').click();
    await first.page.keyboard.type('tool_call/');
    await first.page.waitForSelector('.vlist-row[data-index="1"][data-entry-id="10"]');
    await first.page.locator('.vlist').evaluate((el) => {
      el.scrollTop = 22 * 500;
    });
    await first.page.waitForSelector('.vlist-row[data-index="505"][data-entry-id]');
    await first.page.locator('.vlist-row[data-index="505"]').click();
    const saved = (await first.page.evaluate(() => (window as unknown as FakeWindow).savedState)) as {
      selectedEntryId: number;
      scrollTop: number;
      filter: unknown;
    };
    assert.deepStrictEqual(saved.filter, { name: 'tool_call/' });
    assert.strictEqual(saved.selectedEntryId, 505 * 7 + 3);

    const { page } = await openPage(browser, { ...saved, sessionId: 's2' });
    await page.waitForSelector(`.vlist-row[data-entry-id="${saved.selectedEntryId}"][aria-selected="true"]`);
    const sent = await posted(page);
    assert.deepStrictEqual(
      sent.find((m) => m.type === 'selectSession'),
      { type: 'selectSession', sessionId: 's2' },
    );
    assert.deepStrictEqual(
      sent.find((m) => m.type === 'request' && m.method === 'entries'),
      { type: 'request', id: 1, method: 'entries', params: { offset: 500, limit: 100, filter: { name: 'tool_call/' } } },
    );
    assert.strictEqual(await page.locator('.vlist').evaluate((el) => el.scrollTop), saved.scrollTop);
    assert.strictEqual(await page.locator('#filter-name').evaluate((el) => (el as HTMLElement & { value: string }).value), 'tool_call/');
    await page.waitForSelector('#entry-detail pre:not([aria-busy])');
    assert.match((await page.locator('#entry-detail pre').textContent()) ?? '', new RegExp(`"entryId": ${saved.selectedEntryId}`));
  });

  it('takes screenshots of each view in a light and a dark theme', async () => {
    const themes = {
      light: {
        foreground: '#3b3b3b',
        'editor-background': '#ffffff',
        descriptionForeground: '#717171',
        focusBorder: '#005fb8',
        'badge-foreground': '#ffffff',
        'badge-background': '#616161',
        'button-foreground': '#ffffff',
        'button-background': '#005fb8',
        'list-activeSelectionBackground': '#e8e8e8',
        'list-inactiveSelectionBackground': '#e4e6f1',
        'list-hoverBackground': '#f2f2f2',
        'panel-border': '#e5e5e5',
        'textCodeBlock-background': '#f8f8f8',
        errorForeground: '#f85149',
        'editorWarning-foreground': '#bf8803',
        'charts-blue': '#1a85ff',
        'charts-green': '#388a34',
        'inputValidation-errorBackground': '#f2dede',
        'inputValidation-errorBorder': '#be1100',
        'font-family': 'sans-serif',
        'font-size': '13px',
        'editor-font-family': 'monospace',
        'panelTitle-activeForeground': '#3b3b3b',
        'panelTitle-activeBorder': '#005fb8',
        'panelTitle-inactiveForeground': '#3b3b3b',
        'panel-background': '#f8f8f8',
        'settings-dropdownBackground': '#ffffff',
        'settings-dropdownForeground': '#3b3b3b',
        'settings-dropdownBorder': '#cecece',
        'dropdown-background': '#ffffff',
        'dropdown-foreground': '#3b3b3b',
        'dropdown-border': '#cecece',
        'settings-textInputBackground': '#ffffff',
        'settings-textInputForeground': '#3b3b3b',
        'settings-textInputBorder': '#cecece',
        'input-background': '#ffffff',
        'input-foreground': '#3b3b3b',
        'input-border': '#cecece',
        'settings-checkboxBackground': '#f8f8f8',
        'settings-checkboxForeground': '#3b3b3b',
        'settings-checkboxBorder': '#cecece',
        'checkbox-background': '#f8f8f8',
        'checkbox-foreground': '#3b3b3b',
        'checkbox-border': '#cecece',
        'button-secondaryBackground': '#e5e5e5',
        'button-secondaryForeground': '#3b3b3b',
        'button-secondaryHoverBackground': '#cccccc',
        'list-activeSelectionForeground': '#000000',
      },
      dark: {
        foreground: '#cccccc',
        'editor-background': '#1f1f1f',
        descriptionForeground: '#9d9d9d',
        focusBorder: '#0078d4',
        'badge-foreground': '#f8f8f8',
        'badge-background': '#616161',
        'button-foreground': '#ffffff',
        'button-background': '#0078d4',
        'list-activeSelectionBackground': '#04395e',
        'list-inactiveSelectionBackground': '#37373d',
        'list-hoverBackground': '#2a2d2e',
        'panel-border': '#2b2b2b',
        'textCodeBlock-background': '#2b2b2b',
        errorForeground: '#f85149',
        'editorWarning-foreground': '#cca700',
        'charts-blue': '#3794ff',
        'charts-green': '#89d185',
        'inputValidation-errorBackground': '#5a1d1d',
        'inputValidation-errorBorder': '#be1100',
        'font-family': 'sans-serif',
        'font-size': '13px',
        'editor-font-family': 'monospace',
      },
    };
    fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
    for (const [theme, vars] of Object.entries(themes)) {
      const { page, cspErrors } = await openPage(browser);
      await page.evaluate(
        ([t, v]) => {
          document.body.classList.add(`vscode-${t}`);
          for (const [k, value] of Object.entries(v)) document.documentElement.style.setProperty(`--vscode-${k}`, value);
        },
        [theme, vars] as const,
      );
      for (const view of ['transcript', 'entries', 'anchors', 'requests', 'projections']) {
        await page.locator(`vscode-tab-header[data-view=${view}]`).click();
        const ready =
          {
            transcript: '.transcript-item',
            entries: '.vlist-row[data-entry-id="1"]',
            anchors: '.anchor.in-force',
            requests: '.diff',
            projections: '.pressure',
          }[view] ?? '';
        await page.waitForSelector(`vscode-tab-panel[data-view=${view}] ${ready}`);
        if (view === 'transcript') await page.locator('.transcript-item[data-message-id="m2"]').click();
        if (view === 'entries') await page.locator('.vlist-row').nth(2).click();
        await page.waitForTimeout(100);
        await page.screenshot({ path: path.join(root, 'test-results', `inspector-${view}-${theme}.png`) });
      }
      assert.match(
        (await page.locator('.pressure-text').textContent()) ?? '',
        /^42\.2% \(54,000 of 128,000 tokens, an assumed window: gpt-unknown's is not known\)$/,
      );
      assert.deepStrictEqual(cspErrors, []);
    }
  });
});
