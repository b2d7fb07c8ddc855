// The page suites' set-up of a webview page in Chromium: the real HTML shell, CSP and bundle, a
// stand-in for VS Code's messenger, and the page's own complaints collected.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/vscodeServer';
import { webviewPageUrl } from '../support/webviewPage';

export const root = path.resolve(__dirname, '../../..');

const PAGES = {
  inspector: { title: 'Tape Inspector', script: 'dist/inspector.js', style: 'media/inspector.css', codicons: true },
  webview: { title: 'test', script: 'dist/webview.js', style: 'media/webview.css', codicons: false },
} as const;

/**
 * What the messenger stub leaves on the page's window: every message the page posted, the state it
 * saved (a fake host may set the state a restored webview starts with), and the fake host's answer.
 */
export interface StubWindow {
  posted: InspectorToHost[];
  savedState?: unknown;
  host?: (m: InspectorToHost) => void;
}

/** Headless Chromium, once the bundles the suite loads are built (a stale or missing dist/ would test nothing). */
export async function launchChromium(bundles: string[] = ['dist/inspector.js', 'dist/codicon.css', 'dist/codicon.ttf']): Promise<Browser> {
  for (const f of bundles) assert.ok(fs.existsSync(path.join(root, f)), `${f} is built`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Runs in the page before the bundle: what acquireVsCodeApi gives a webview, with messages handed to the fake host. */
function messengerStub(): void {
  const w = window as unknown as StubWindow & { acquireVsCodeApi: () => unknown };
  w.posted = [];
  w.acquireVsCodeApi = () => ({
    postMessage: (m: InspectorToHost) => {
      w.posted.push(m);
      w.host?.(m);
    },
    getState: () => w.savedState,
    setState: (s: unknown) => {
      w.savedState = s;
    },
  });
}

export interface OpenedPage {
  page: Page;
  /** CSP refusals, uncaught page errors, and what `watch` adds. */
  errors: string[];
}

/**
 * A webview page (the inspector unless `bundle` says otherwise) opened in `browser` with `host`
 * run before the bundle (given `arg`; it answers by setting `window.host`). `watch` subscribes to
 * the page's events before it loads; `errors` collects into a list the suite already keeps.
 */
export async function openInspectorPage<A>(
  browser: Browser,
  o: {
    host?: (arg: A) => void;
    arg?: A;
    viewport?: { width: number; height: number };
    bundle?: keyof typeof PAGES;
    errors?: string[];
    watch?: (page: Page, errors: string[]) => void;
  } = {},
): Promise<OpenedPage> {
  const url = webviewPageUrl(root, { ...PAGES[o.bundle ?? 'inspector'], nonce: 'testnonce123' });
  const page = await browser.newPage(o.viewport ? { viewport: o.viewport } : {});
  const errors = o.errors ?? [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused/i.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  o.watch?.(page, errors);
  await page.addInitScript(messengerStub);
  if (o.host) await page.addInitScript(o.host as (arg: unknown) => void, o.arg);
  await page.goto(url);
  return { page, errors };
}

/** A message from the extension host, as VS Code delivers it to the webview. Malformed ones are sent on purpose too, hence `unknown`. */
export const fromHost = (page: Page, msg: unknown) => page.evaluate((m) => window.postMessage(m, '*'), msg);

/** Every message the page has posted to the host so far. */
export const posted = (page: Page) => page.evaluate(() => (window as unknown as StubWindow).posted);

/** Presses `key` (Tab unless told) until the focused element matches, as a keyboard user would. */
export async function tabTo(page: Page, matches: (el: Element) => boolean, o: { key?: string; limit?: number } = {}): Promise<void> {
  const fn = matches.toString();
  for (let i = 0; i < (o.limit ?? 40); i++) {
    await page.keyboard.press(o.key ?? 'Tab');
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
