import MarkdownIt from 'markdown-it';
import { openableUrl } from '../../src/protocol/openableLink';

type Token = MarkdownIt.Token;
type Parser = MarkdownIt.MarkdownIt;

/**
 * Every element Markdown from the tape may become (`markdown.ts` builds them); nothing else is ever
 * made of it. Images are not among them: an image becomes its alt text and address, as text.
 */
export const MARKDOWN_TAGS = [
  'p',
  'em',
  'strong',
  'del',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'a',
  'hr',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'br',
] as const;
export type MarkdownTag = (typeof MARKDOWN_TAGS)[number];

const HEADINGS: readonly string[] = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] satisfies MarkdownTag[];

export interface MdElement {
  readonly tag: Exclude<MarkdownTag, 'a' | 'pre'>;
  readonly children: readonly MdNode[];
  /** On `ol`: its first number, when it is not 1. */
  readonly start?: number;
  /** On `th` and `td`: the column's alignment. */
  readonly align?: 'left' | 'center' | 'right';
}
/** A link to an address `openableUrl` accepts (normalised by it): the only kind of link there is. */
export interface MdLink {
  readonly tag: 'a';
  readonly href: string;
  readonly children: readonly MdNode[];
}
/** A code block: its fence's language word (empty for none) and its text without the last line break. */
export interface MdCode {
  readonly tag: 'pre';
  readonly lang: string;
  readonly code: string;
}
/** An image, never loaded: shown as `imageText`. */
export interface MdImage {
  readonly tag: 'image';
  readonly alt: string;
  readonly src: string;
}
export type MdNode = string | MdElement | MdLink | MdCode | MdImage;

/** "[image: alt] (address)": what an image shows instead of itself. */
export const imageText = (img: MdImage): string => `[image${img.alt === '' ? '' : `: ${img.alt}`}]${img.src === '' ? '' : ` (${img.src})`}`;

let parser: Parser | undefined;

/**
 * Raw HTML off: `<script>`, `<img …>` and HTML blocks are text like any other. Links in plain text
 * only with their scheme: a fuzzy match would make links of `main.rs` or `git@host`.
 */
function markdownIt(): Parser {
  if (parser === undefined) {
    parser = new MarkdownIt('default', { html: false, linkify: true, typographer: false });
    parser.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  }
  return parser;
}

const SIMPLE: Readonly<Record<string, MdElement['tag']>> = {
  paragraph_open: 'p',
  blockquote_open: 'blockquote',
  bullet_list_open: 'ul',
  ordered_list_open: 'ol',
  list_item_open: 'li',
  table_open: 'table',
  thead_open: 'thead',
  tbody_open: 'tbody',
  tr_open: 'tr',
  th_open: 'th',
  td_open: 'td',
  em_open: 'em',
  strong_open: 'strong',
  s_open: 'del',
};

/** An open token's children so far, and what they become in the parent when it closes. */
interface Frame {
  readonly children: MdNode[];
  close(children: MdNode[]): MdNode[];
}

function push(into: MdNode[], nodes: readonly MdNode[]): void {
  for (const n of nodes) {
    const last = into.length - 1;
    // Adjacent text is one text: what the parser split (escapes, entities) reads as one string.
    if (typeof n === 'string' && typeof into[last] === 'string') into[last] += n;
    else into.push(n);
  }
}

function alignOf(t: Token): MdElement['align'] {
  const m = /text-align:\s*(left|center|right)/.exec(String(t.attrGet('style') ?? ''));
  return m === null ? undefined : (m[1] as MdElement['align']);
}

/** The text of inline tokens (an image's alt), as markdown-it's own renderer reads it. */
function plainText(tokens: readonly Token[] | null): string {
  let s = '';
  for (const t of tokens ?? []) {
    if (t.type === 'image') s += plainText(t.children);
    else if (t.type === 'softbreak' || t.type === 'hardbreak') s += '\n';
    else s += t.content;
  }
  return s;
}

/** What an open token becomes: an element of the allow-list, a link when its address may open, or just its children. */
function frameOf(t: Token): Frame {
  const children: MdNode[] = [];
  if (t.type === 'link_open') {
    const href = String(t.attrGet('href') ?? '');
    const target = openableUrl(href);
    // An autolink or a bare address shows the address already; any other shows where it leads.
    const shown = t.markup === 'autolink' || t.markup === 'linkify' || href === '';
    return { children, close: (c) => (target !== null ? [{ tag: 'a', href: target, children: c }] : shown ? c : [...c, ` (${href})`]) };
  }
  // A tight list's paragraphs are not shown as paragraphs.
  if (t.type === 'paragraph_open' && t.hidden) return { children, close: (c) => c };
  if (t.type === 'heading_open' && HEADINGS.includes(t.tag)) return { children, close: (c) => [{ tag: t.tag as MdElement['tag'], children: c }] };
  const tag = SIMPLE[t.type];
  if (tag === undefined) return { children, close: (c) => c };
  const start = tag === 'ol' ? Number(t.attrGet('start') ?? 1) : 1;
  const align = tag === 'th' || tag === 'td' ? alignOf(t) : undefined;
  return {
    children,
    close: (c) => [{ tag, children: c, ...(Number.isSafeInteger(start) && start !== 1 ? { start } : {}), ...(align === undefined ? {} : { align }) }],
  };
}

/** What a token without children of its own (nesting 0) becomes; unknown ones are their text. */
function leafOf(t: Token): MdNode[] {
  switch (t.type) {
    case 'inline':
      return [];
    case 'softbreak':
      return ['\n'];
    case 'hardbreak':
      return [{ tag: 'br', children: [] }];
    case 'hr':
      return [{ tag: 'hr', children: [] }];
    case 'code_inline':
      return [{ tag: 'code', children: [t.content] }];
    case 'fence':
    case 'code_block':
      return [{ tag: 'pre', lang: t.info.trim().split(/\s+/)[0] ?? '', code: t.content.replace(/\n$/, '') }];
    case 'image':
      return [{ tag: 'image', alt: plainText(t.children), src: String(t.attrGet('src') ?? '') }];
    default:
      if (t.content === '') return [];
      return t.block ? [{ tag: 'p', children: [t.content] }] : [t.content];
  }
}

function walk(tokens: readonly Token[], stack: Frame[]): void {
  for (const t of tokens) {
    if (t.nesting === 1) stack.push(frameOf(t));
    else if (t.nesting === -1) {
      // markdown-it balances its tokens; the root frame is never closed by one.
      if (stack.length === 1) continue;
      const frame = stack.pop() as Frame;
      push(stack[stack.length - 1].children, frame.close(frame.children));
    } else {
      push(stack[stack.length - 1].children, leafOf(t));
      if (t.type === 'inline' && t.children !== null) walk(t.children, stack);
    }
  }
}

/**
 * Markdown text as a tree of allow-listed elements, links that may open and images as text. The
 * parser's tokens are read, never its HTML: nothing of the text is ever parsed as markup.
 */
export function markdownTree(text: string): MdNode[] {
  const root: Frame = { children: [], close: (c) => c };
  const stack = [root];
  walk(markdownIt().parse(text, {}), stack);
  while (stack.length > 1) {
    const frame = stack.pop() as Frame;
    push(stack[stack.length - 1].children, frame.close(frame.children));
  }
  return root.children;
}
