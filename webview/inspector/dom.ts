import { BIDI_CLASS, unicodeEscape } from '../../src/tape/unicodeEscape';

/**
 * The one way the inspector builds DOM. Children that are strings become text nodes and attributes
 * are set one by one, so a string from the tape is never parsed as markup (SPEC 3.20); no view of
 * the inspector assigns markup strings to the DOM.
 */
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | number | boolean | undefined>,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Record<string, string | number | boolean | undefined>, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

export function setAttrs(e: Element, attrs: Record<string, string | number | boolean | undefined>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) e.removeAttribute(k);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
}

export function append(e: Element, children: Child[]): void {
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' ? textOf(c) : c);
}

const BIDI = new RegExp(`[${BIDI_CLASS}]`);
const BIDI_SPLIT = new RegExp(`([${BIDI_CLASS}])`);

/**
 * Text from the tape as DOM text. A bidirectional formatting character would reorder what the
 * reader sees around it, so a hostile command could read as a harmless one (Trojan Source): each
 * is shown as a marked escape (`\u202e`) instead of applied.
 */
export function textOf(text: string): Node {
  if (!BIDI.test(text)) return document.createTextNode(text);
  const fragment = document.createDocumentFragment();
  for (const part of text.split(BIDI_SPLIT)) {
    if (part === '') continue;
    if (!BIDI.test(part)) {
      fragment.append(document.createTextNode(part));
      continue;
    }
    const escaped = unicodeEscape(part);
    const mark = document.createElement('span');
    mark.className = 'bidi-mark';
    mark.title = `U+${escaped.slice(2).toUpperCase()}, a bidirectional formatting character: shown, not applied`;
    mark.textContent = escaped;
    fragment.append(mark);
  }
  return fragment;
}

const SVG = 'http://www.w3.org/2000/svg';
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  append(e, children);
  return e;
}

/** A marker or flag as a badge with its word in it, so meaning never rests on colour alone. */
export const badge = (text: string, variant = ''): HTMLElement => h('span', { class: `badge ${variant}`.trim() }, text);

const numberFormat = new Intl.NumberFormat('en-US');
export const num = (n: number | null): string => (n === null ? '—' : numberFormat.format(n));
export const signed = (n: number): string => (n > 0 ? `+${numberFormat.format(n)}` : numberFormat.format(n));
export const time = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');

/** Pretty-prints JSON text; text that is not JSON is shown as it came. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
