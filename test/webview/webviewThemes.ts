import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';

/**
 * What a webview of VS Code 1.139 is given in four of its themes (Light Modern, Dark Modern, Dark
 * High Contrast, Light High Contrast): the body's classes and the `--vscode-*` variables on its
 * root element, read from the inspector's frame in the web workbench (the colours, fonts and the
 * variables of controls a webview may style; editor-only ones such as the terminal's left out).
 */
interface WebviewTheme {
  name: string;
  bodyClass: string;
  themeKind: string;
  vars: Record<string, string>;
}

const root = path.resolve(__dirname, '../../..');
export const WEBVIEW_THEMES = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/themes/webview-themes.json'), 'utf8')) as Record<
  'light' | 'dark' | 'high-contrast' | 'high-contrast-light',
  WebviewTheme
>;
export type ThemeKey = keyof typeof WEBVIEW_THEMES;

/** Dresses the page as VS Code does a webview when the theme changes: classes, theme kind and variables replaced. */
export async function wearTheme(page: Page, key: ThemeKey): Promise<void> {
  await page.evaluate((t) => {
    document.body.className = t.bodyClass;
    document.body.dataset.vscodeThemeKind = t.themeKind;
    document.body.dataset.vscodeThemeName = t.name;
    const style = document.documentElement.style;
    for (const name of Array.from(style)) if (name.startsWith('--vscode-')) style.removeProperty(name);
    for (const [k, v] of Object.entries(t.vars)) style.setProperty(`--vscode-${k}`, v);
  }, WEBVIEW_THEMES[key]);
}

export interface ContrastReading {
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/**
 * The WCAG contrast ratio of each piece of text under `selector` (every element with a text node
 * of its own that is rendered): its computed colour over the background it is drawn on, found by
 * compositing the backgrounds of it and its ancestors (translucent ones included) over the canvas.
 */
export function contrastOf(page: Page, selector: string): Promise<ContrastReading[]> {
  return page.evaluate((sel) => {
    type Rgba = [number, number, number, number];
    const parse = (c: string): Rgba => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) throw new Error(`unexpected colour ${c}`);
      const [r, g, b, a = 1] = m[1]
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [r, g, b, a];
    };
    const over = (top: Rgba, under: Rgba): Rgba => {
      const a = top[3] + under[3] * (1 - top[3]);
      if (a === 0) return [0, 0, 0, 0];
      const mix = (i: number) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a;
      return [mix(0), mix(1), mix(2), a];
    };
    const luminance = ([r, g, b]: Rgba): number => {
      const lin = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const backgroundOf = (el: Element): Rgba => {
      const layers: Rgba[] = [];
      for (let e: Element | null = el; e !== null; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
      // The canvas under a transparent page is white.
      return layers.reduceRight<Rgba>((under, top) => over(top, under), [255, 255, 255, 1]);
    };
    const readings: { text: string; ratio: number; color: string; background: string }[] = [];
    for (const el of Array.from(document.querySelectorAll(sel))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? '')
        .join('')
        .trim();
      if (own === '' || (el as HTMLElement).offsetParent === null) continue;
      const bg = backgroundOf(el);
      const fg = over(parse(getComputedStyle(el).color), bg);
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
      const hex = (c: Rgba) =>
        `#${c
          .slice(0, 3)
          .map((v) => Math.round(v).toString(16).padStart(2, '0'))
          .join('')}`;
      readings.push({ text: own, ratio: (hi + 0.05) / (lo + 0.05), color: hex(fg), background: hex(bg) });
    }
    return readings;
  }, selector);
}
