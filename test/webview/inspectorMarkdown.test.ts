import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { launchChromium, openInspectorPage, posted, root, type StubWindow } from './inspectorPageFixture';

const shots = path.join(root, 'test-results');

const RICH = [
  '## Plan',
  '',
  'I fixed **spotter-dov.3** and *the parser*; run `npm test` next. See [the docs](https://example.com/docs) or <mailto:me@example.com>.',
  '',
  '- first step',
  '- second with `code`',
  '',
  '1. one',
  '2. two',
  '',
  '```ts',
  'const greet = (name: string) => `hello ${name}`;',
  '```',
  '',
  '| file | lines |',
  '|------|------:|',
  '| a.ts | 12 |',
  '',
  '> quoted ~~old~~',
].join('\n');
const CODE = 'const greet = (name: string) => `hello ${name}`;';
const HOSTILE = [
  '<script>window.__pwned=1</script>',
  '',
  '<img src=x onerror="window.__pwned=1"> and [x](javascript:window.__pwned=1) and ![a](https://evil.example/x.png)',
  '',
  '<div onmouseover="window.__pwned=1"><iframe src="https://evil.example/"></iframe></div>',
  '',
  'Autolinks: <data:text/html,<script>window.__pwned=1</script>> <javascript:window.__pwned=1> [run](command:workbench.action.terminal.new) [f](file:///etc/passwd) <vscode:extension/evil>',
  '',
  '![tracker](https://evil.example/pixel.gif "t")',
].join('\n');
/** A long Markdown message, for the many earlier ones: each is rendered only when it comes near the view. */
const LONG = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} with **bold** text and \`code\`.`).join('\n\n');
const EARLIER = 300;
const SUMMARY = '## What happened\n\n- fixed `lib/tokens.ts`\n- **next**: the CLI\n\nThe user asked "why?"\tand got an answer.';

interface FakeWindow extends StubWindow {
  __pwned?: number;
}

/** A fake host whose session has `earlier` long messages, then a rich, a hostile and a plain one, and two anchors. */
function fakeHost(o: { rich: string; hostile: string; long: string; earlier: number; summary: string; state: unknown }): void {
  const w = window as unknown as FakeWindow;
  w.savedState = o.state;
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const item = (i: number, messageId: string, role: string, text: string) => ({
    entryId: 10 + i,
    messageId,
    role,
    status: 'sent',
    text,
    cut: false,
    markers: [],
    entryIds: [10 + i],
    toolCalls: [],
  });
  const items = [
    ...Array.from({ length: o.earlier }, (_, i) => item(i, `e${i}`, i % 2 ? 'assistant' : 'user', `Message ${i}\n\n${o.long}`)),
    item(o.earlier, 'rich', 'assistant', o.rich),
    item(o.earlier + 1, 'hostile', 'assistant', o.hostile),
    item(o.earlier + 2, 'plain', 'user', 'Thanks, that works.'),
  ];
  const answer = (m: InspectorToHost) => {
    if (m.type === 'ready') {
      reply({
        type: 'source',
        label: 'tape: markdown.tape.jsonl',
        readOnly: true,
        headEntryId: 1000,
        sessionId: 's1',
        sessions: [{ sessionId: 's1', title: 'Markdown', entryCount: 1000, lastCreatedAt: 0 }],
      });
      return reply({ type: 'transcript', sessionId: 's1', headEntryId: 1000, offset: 0, total: items.length, items });
    }
    if (m.type !== 'request') return undefined;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    switch (m.method) {
      case 'openLink':
        return ok({ opened: true });
      case 'entry': {
        const id = (m.params as { entryId: number }).entryId;
        return ok({ entryId: id, entry: JSON.stringify({ entryId: id }) });
      }
      case 'anchors':
        return ok({
          sessionId: 's1',
          items: [
            {
              entryId: 1,
              name: 'session/start',
              createdAt: 0,
              inForce: false,
              state: JSON.stringify({ sessionId: 's1', summary: 'not a summary' }, null, 2),
              checkpoint: null,
              audit: null,
              amendments: null,
              amendable: null,
            },
            {
              entryId: 400,
              name: 'compaction/auto',
              createdAt: 5000,
              inForce: true,
              state: JSON.stringify({ summary: o.summary, cursorOrderSeq: 7, model: { id: 'claude-opus-4', vendor: 'anthropic' } }, null, 2),
              checkpoint: `[Checkpoint compaction/auto at entry 400: the conversation before this point is summarised here.]\n\n${o.summary}`,
              audit: null,
              amendments: null,
              amendable: null,
            },
            {
              entryId: 500,
              name: 'handoff/next',
              createdAt: 6000,
              inForce: false,
              state: JSON.stringify({ summary: 'Continue with *the tests*.' }),
              checkpoint: 'Continue with *the tests*.',
              audit: null,
              amendments: null,
              amendable: null,
            },
          ],
        });
      default:
        return undefined;
    }
  };
  w.host = answer;
}

interface Opened {
  page: Page;
  /** Every request the page made, by URL. */
  requests: string[];
  /** Frames navigated after the page loaded. */
  navigations: string[];
  errors: string[];
}

async function openPage(browser: Browser, state: unknown = undefined, hostile = HOSTILE): Promise<Opened> {
  const requests: string[] = [];
  const navigations: string[] = [];
  const { page, errors } = await openInspectorPage(browser, {
    host: fakeHost,
    arg: { rich: RICH, hostile, long: LONG, earlier: EARLIER, summary: SUMMARY, state },
    viewport: { width: 1100, height: 760 },
    watch: (p) => p.on('request', (r) => requests.push(r.url())),
  });
  page.on('framenavigated', (f) => navigations.push(f.url()));
  await page.waitForSelector('.transcript-item[data-message-id="plain"]', { state: 'attached' });
  return { page, requests, navigations, errors };
}

const item = (page: Page, id: string) => page.locator(`.transcript-item[data-message-id="${id}"]`);
/** Elements anywhere in the page, shadow roots included (the components' too). */
const countDeep = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    let n = 0;
    const visit = (r: Document | ShadowRoot) => {
      n += r.querySelectorAll(sel).length;
      for (const el of r.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
    };
    visit(document);
    return n;
  }, selector);

describe('Tape Inspector webview in Chromium: Markdown of tape text', function () {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  it('emphasis, code, lists, a code block, a table, a heading and a quote are elements, under the strict CSP', async () => {
    const { page, errors } = await openPage(browser);
    const text = item(page, 'rich').locator('.text.md');
    await text.waitFor();
    assert.deepStrictEqual(await text.locator('strong').allTextContents(), ['spotter-dov.3']);
    assert.deepStrictEqual(await text.locator('em').allTextContents(), ['the parser']);
    assert.deepStrictEqual(await text.locator(':scope > p code, li code').allTextContents(), ['npm test', 'code']);
    assert.deepStrictEqual(await text.locator('ul > li').allTextContents(), ['first step', 'second with code']);
    assert.deepStrictEqual(await text.locator('ol > li').allTextContents(), ['one', 'two']);
    assert.strictEqual(await text.locator('h2').textContent(), 'Plan');
    assert.strictEqual(await text.locator('pre > code').textContent(), CODE);
    assert.strictEqual(await text.locator('.md-code-lang').textContent(), 'ts');
    assert.deepStrictEqual(await text.locator('th').allTextContents(), ['file', 'lines']);
    assert.strictEqual(await text.locator('td.md-align-right').textContent(), '12');
    assert.strictEqual(await text.locator('blockquote del').textContent(), 'old');
    // Code is in the theme's editor font.
    await page.evaluate(() => document.documentElement.style.setProperty('--vscode-editor-font-family', '"Editor Font", monospace'));
    assert.deepStrictEqual(await page.evaluate(() => ['.md pre', '.md p code'].map((sel) => getComputedStyle(document.querySelector(sel)!).fontFamily)), [
      '"Editor Font", monospace',
      '"Editor Font", monospace',
    ]);
    assert.deepStrictEqual(errors, []);
  });

  it('hostile Markdown runs nothing, loads nothing and makes no image, frame or navigable link', async () => {
    const { page, requests, navigations, errors } = await openPage(browser);
    const text = item(page, 'hostile').locator('.text.md');
    await text.waitFor();
    await text.hover();
    await item(page, 'hostile').click({ position: { x: 5, y: 5 } });
    await page.waitForTimeout(300);
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
    for (const sel of ['img', 'iframe', 'script:not([nonce])', 'object', 'embed', 'a[href]', '[onerror]', '[onmouseover]'])
      assert.strictEqual(await countDeep(page, sel), 0, sel);
    assert.strictEqual(await page.locator('.transcript [style]').count(), 0);
    const shown = (await text.textContent()) ?? '';
    for (const part of [
      '<script>window.__pwned=1</script>',
      '<img src=x onerror="window.__pwned=1">',
      '[x](javascript:window.__pwned=1)',
      '[image: a] (https://evil.example/x.png)',
      '<div onmouseover="window.__pwned=1"><iframe src="https://evil.example/"></iframe></div>',
      '<data:text/html,<script>window.__pwned=1</script>>',
      'run (command:workbench.action.terminal.new)',
      '[f](file:///etc/passwd)',
      'vscode:extension/evil',
      '[image: tracker] (https://evil.example/pixel.gif)',
    ])
      assert.ok(shown.includes(part), `${part} shown as text in ${shown}`);
    // None of these schemes is a link; the one link is the https address written in the text, which opens only through the host.
    assert.deepStrictEqual(await text.locator('.md-link').evaluateAll((ls) => ls.map((l) => [l.textContent, l.getAttribute('title')])), [
      ['https://evil.example/', 'https://evil.example/'],
    ]);
    // Only the page's own files were ever asked for: no image, frame or address of the text.
    assert.deepStrictEqual(
      requests.filter((u) => !u.startsWith('file:')),
      [],
    );
    assert.deepStrictEqual(navigations, []);
    assert.deepStrictEqual(errors, []);
  });

  it('bidirectional formatting characters are shown as marked escapes, rendered and raw; Copy keeps them', async () => {
    // Rendered raw, U+202E would show this command's tail reversed, and the isolate would hide where it ends.
    const tail = ' \u202e\u2066 /* keep */\u2069\u202c; echo ok';
    const bidi = `Run this:\n\n\`\`\`sh\nrm -rf ./build${tail}\n\`\`\`\n\nthen \`npm test\u200f\`.`;
    const { page, errors } = await openPage(browser, undefined, bidi);
    const text = item(page, 'hostile').locator('.text.md');
    await text.waitFor();
    const raw = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    const shown = (await text.textContent()) ?? '';
    assert.doesNotMatch(shown, raw);
    assert.ok(shown.includes('rm -rf ./build \\u202e\\u2066 /* keep */\\u2069\\u202c; echo ok'), shown);
    assert.deepStrictEqual(await text.locator('.bidi-mark').allTextContents(), ['\\u202e', '\\u2066', '\\u2069', '\\u202c', '\\u200f']);
    assert.strictEqual(await text.locator('.bidi-mark').first().getAttribute('title'), 'U+202E, a bidirectional formatting character: shown, not applied');
    await item(page, 'hostile').locator('button.md-copy').click();
    const copies = (await posted(page)).filter((m) => m.type === 'copy');
    assert.deepStrictEqual(copies, [{ type: 'copy', text: `rm -rf ./build${tail}` }], 'Copy gives the exact text');
    await page.locator('.transcript-bar .raw-toggle').click();
    const rawText = item(page, 'hostile').locator('.text.raw');
    await rawText.waitFor();
    assert.doesNotMatch((await rawText.textContent()) ?? '', raw);
    assert.strictEqual(await rawText.locator('.bidi-mark').count(), 5);
    assert.deepStrictEqual(errors, []);
  });

  it('a link opens only by asking the host (click or Enter); the page never navigates', async () => {
    const { page, navigations, requests } = await openPage(browser);
    const links = item(page, 'rich').locator('.md-link');
    await links.first().waitFor();
    assert.deepStrictEqual(await links.allTextContents(), ['the docs', 'mailto:me@example.com']);
    assert.strictEqual(await links.first().getAttribute('href'), null);
    assert.strictEqual(await links.first().getAttribute('title'), 'https://example.com/docs');
    const popups: string[] = [];
    page.context().on('page', (p) => popups.push(p.url()));
    await links.first().click();
    await links.nth(1).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as FakeWindow).posted.filter((m) => m.type === 'request' && m.method === 'openLink').length === 2);
    const opened = (await posted(page)).flatMap((m) => (m.type === 'request' && m.method === 'openLink' ? [m.params] : []));
    assert.deepStrictEqual(opened, [{ url: 'https://example.com/docs' }, { url: 'mailto:me@example.com' }]);
    // The link's press is the link's: the message around it did not open its entries.
    assert.strictEqual((await posted(page)).filter((m) => m.type === 'request' && m.method === 'entry').length, 0);
    await page.waitForTimeout(200);
    assert.deepStrictEqual([navigations, popups, requests.filter((u) => !u.startsWith('file:'))], [[], [], []]);
  });

  it('Copy on a code block posts its exact text to the host, by mouse and by keyboard', async () => {
    const { page } = await openPage(browser);
    const copy = item(page, 'rich').locator('button.md-copy');
    await copy.waitFor();
    assert.strictEqual(await copy.getAttribute('aria-label'), 'Copy the ts code');
    await copy.click();
    await copy.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    const copies = (await posted(page)).filter((m) => m.type === 'copy');
    assert.deepStrictEqual(copies, [
      { type: 'copy', text: CODE },
      { type: 'copy', text: CODE },
      { type: 'copy', text: CODE },
    ]);
  });

  it('Raw text shows the exact text of every message, is kept after a reload, and switches back', async () => {
    const first = await openPage(browser);
    await item(first.page, 'rich').locator('.text.md').waitFor();
    await first.page.locator('.transcript-bar .raw-toggle').click();
    await item(first.page, 'rich').locator('.text.raw').waitFor();
    assert.strictEqual(await item(first.page, 'rich').locator('.text').textContent(), RICH);
    assert.strictEqual(await item(first.page, 'hostile').locator('.text').textContent(), HOSTILE);
    assert.strictEqual(await first.page.locator('.transcript .text.md').count(), 0);
    assert.strictEqual(await first.page.locator('.transcript .text strong, .transcript .md-link').count(), 0);
    const saved = (await first.page.evaluate(() => (window as unknown as FakeWindow).savedState)) as { raw?: boolean };
    assert.strictEqual(saved.raw, true);
    // The Anchors view's box is the same setting.
    await first.page.locator('vscode-tab-header[data-view=anchors]').click();
    await first.page.waitForSelector('.anchor[data-entry-id="400"] .anchor-summary-text.raw');
    assert.strictEqual(await first.page.locator('.anchors-bar .raw-toggle').evaluate((b) => (b as HTMLElement & { checked: boolean }).checked), true);
    assert.strictEqual(await first.page.locator('.anchor[data-entry-id="400"] .anchor-summary-text').textContent(), SUMMARY);

    const { page } = await openPage(browser, { ...saved, view: 'transcript' });
    await item(page, 'rich').locator('.text.raw').waitFor();
    assert.strictEqual(await page.locator('.transcript-bar .raw-toggle').evaluate((b) => (b as HTMLElement & { checked: boolean }).checked), true);
    await page.locator('.transcript-bar .raw-toggle').click();
    await item(page, 'rich').locator('.text.md strong').waitFor();
    assert.strictEqual(((await page.evaluate(() => (window as unknown as FakeWindow).savedState)) as { raw?: boolean }).raw, false);
  });

  it(`renders Markdown on demand: of ${EARLIER + 3} messages only those near the view, the rest as they scroll into it`, async () => {
    const { page } = await openPage(browser);
    await item(page, 'rich').locator('.text.md').waitFor();
    const rendered = () => page.locator('.transcript .text.md').count();
    const near = await rendered();
    assert.ok(near >= 3 && near < 40, `${near} rendered at first`);
    assert.strictEqual(await item(page, 'e0').locator('.text.raw').count(), 1, 'the first message waits, as its text');
    const scroll = page.locator('.transcript-scroll');
    assert.ok(await scroll.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 2), 'opens at the latest message, rendered');
    await scroll.evaluate((el) => {
      el.scrollTop = 0;
    });
    await item(page, 'e0').locator('.text.md strong').first().waitFor();
    assert.ok((await rendered()) < 2 * near + 40, 'the middle is still not rendered');
  });

  it("Anchors: a compaction's summary and a handoff's notes read as text; the rest of the state is collapsed JSON", async () => {
    const { page } = await openPage(browser, { view: 'anchors', sessionId: 's1', filter: {}, selectedEntryId: null, scrollTop: 0 });
    const compaction = page.locator('.anchor[data-entry-id="400"]');
    await compaction.locator('.anchor-summary-text.md').waitFor();
    assert.strictEqual(await compaction.locator('.anchor-summary h4').textContent(), 'Summary');
    assert.deepStrictEqual(await compaction.locator('.anchor-summary-text li').allTextContents(), ['fixed lib/tokens.ts', 'next: the CLI']);
    assert.strictEqual(await compaction.locator('.anchor-summary-text h2').textContent(), 'What happened');
    const summaryText = (await compaction.locator('.anchor-summary-text').textContent()) ?? '';
    assert.ok(summaryText.includes('The user asked "why?"\tand got an answer.'), summaryText);
    assert.ok(!/\\[nt"]/.test(summaryText), `no escape sequences: ${summaryText}`);

    const state = compaction.locator('details.anchor-state');
    assert.strictEqual(await state.getAttribute('open'), null);
    assert.strictEqual(await state.locator('pre.json').isVisible(), false);
    await state.locator('summary').focus();
    await page.keyboard.press('Enter');
    assert.deepStrictEqual(JSON.parse((await state.locator('pre.json').textContent()) ?? ''), {
      cursorOrderSeq: 7,
      model: { id: 'claude-opus-4', vendor: 'anthropic' },
    });
    assert.strictEqual(await compaction.locator('details.anchor-checkpoint').getAttribute('open'), null);

    const handoff = page.locator('.anchor[data-entry-id="500"]');
    assert.strictEqual(await handoff.locator('.anchor-summary h4').textContent(), 'Notes');
    assert.strictEqual(await handoff.locator('.anchor-summary-text em').textContent(), 'the tests');
    assert.strictEqual(await handoff.locator('details.anchor-state').count(), 0, 'nothing left of its state');
    // Not a reconstruction anchor: its `summary` is state like any other.
    const start = page.locator('.anchor[data-entry-id="1"]');
    assert.strictEqual(await start.locator('.anchor-summary').count(), 0);
    await start.locator('details.anchor-state summary').click();
    assert.deepStrictEqual(JSON.parse((await start.locator('pre.json').textContent()) ?? ''), { sessionId: 's1', summary: 'not a summary' });
  });

  it('takes screenshots of the transcript and the anchors in a light, a dark and a high-contrast theme', async () => {
    const themes: Record<string, { kind: string; vars: Record<string, string> }> = {
      light: {
        kind: 'vscode-light',
        vars: {
          foreground: '#3b3b3b',
          'editor-background': '#ffffff',
          descriptionForeground: '#717171',
          focusBorder: '#005fb8',
          'badge-foreground': '#ffffff',
          'badge-background': '#616161',
          'button-foreground': '#ffffff',
          'button-background': '#005fb8',
          'button-secondaryBackground': '#e5e5e5',
          'button-secondaryForeground': '#3b3b3b',
          'panel-border': '#e5e5e5',
          'textCodeBlock-background': '#f8f8f8',
          'textLink-foreground': '#005fb8',
          'textLink-activeForeground': '#005fb8',
          'textBlockQuote-border': '#e5e5e5',
          'textBlockQuote-background': '#f8f8f8',
          'font-family': 'sans-serif',
          'font-size': '13px',
          'editor-font-family': 'monospace',
        },
      },
      dark: {
        kind: 'vscode-dark',
        vars: {
          foreground: '#cccccc',
          'editor-background': '#1f1f1f',
          descriptionForeground: '#9d9d9d',
          focusBorder: '#0078d4',
          'badge-foreground': '#f8f8f8',
          'badge-background': '#616161',
          'button-foreground': '#ffffff',
          'button-background': '#0078d4',
          'button-secondaryBackground': '#313131',
          'button-secondaryForeground': '#cccccc',
          'panel-border': '#2b2b2b',
          'textCodeBlock-background': '#2b2b2b',
          'textLink-foreground': '#4daafc',
          'textLink-activeForeground': '#4daafc',
          'textBlockQuote-border': '#616161',
          'textBlockQuote-background': '#2b2b2b',
          'font-family': 'sans-serif',
          'font-size': '13px',
          'editor-font-family': 'monospace',
        },
      },
      'high-contrast': {
        kind: 'vscode-high-contrast',
        vars: {
          foreground: '#ffffff',
          'editor-background': '#000000',
          descriptionForeground: '#ffffff',
          focusBorder: '#f38518',
          contrastBorder: '#6fc3df',
          contrastActiveBorder: '#f38518',
          'badge-foreground': '#ffffff',
          'badge-background': '#000000',
          'button-foreground': '#ffffff',
          'button-background': '#000000',
          'button-border': '#6fc3df',
          'button-secondaryBackground': '#000000',
          'button-secondaryForeground': '#ffffff',
          'textCodeBlock-background': '#000000',
          'textLink-foreground': '#21a6ff',
          'textLink-activeForeground': '#21a6ff',
          'textBlockQuote-border': '#ffffff',
          'font-family': 'sans-serif',
          'font-size': '13px',
          'editor-font-family': 'monospace',
        },
      },
    };
    fs.mkdirSync(shots, { recursive: true });
    for (const [theme, { kind, vars }] of Object.entries(themes)) {
      const { page, errors } = await openPage(browser);
      await page.evaluate(
        ([k, v]) => {
          document.body.classList.add(k);
          for (const [name, value] of Object.entries(v)) document.documentElement.style.setProperty(`--vscode-${name}`, value);
        },
        [kind, vars] as const,
      );
      await item(page, 'rich').locator('.text.md').waitFor();
      await item(page, 'rich').scrollIntoViewIfNeeded();
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(shots, `inspector-markdown-transcript-${theme}.png`) });
      // The link is in the theme's link colour, not the text's.
      const [link, body] = await page.evaluate(() => [getComputedStyle(document.querySelector('.md-link')!).color, getComputedStyle(document.body).color]);
      assert.notStrictEqual(link, body, `${theme}: the link stands out`);
      await page.locator('vscode-tab-header[data-view=anchors]').click();
      await page.locator('.anchor[data-entry-id="400"] .anchor-summary-text.md').waitFor();
      await page.locator('.anchor[data-entry-id="400"] details.anchor-state summary').click();
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(shots, `inspector-markdown-anchors-${theme}.png`) });
      assert.deepStrictEqual(errors, []);
    }
  });
});
