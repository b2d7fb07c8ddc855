import { h, textOf } from './dom';
import { imageText, markdownTree, type MdCode, type MdLink, type MdNode } from './markdownTree';

/** What a rendered text's controls do: both go to the host, the only one that may open or copy. */
export interface MarkdownActions {
  openLink(url: string): void;
  copy(text: string): void;
}

/**
 * A link is an element with no `href`: nothing in the page can navigate by it, even if a handler
 * failed. Pressed (click or Enter), it asks the host, which opens it through VS Code.
 */
function link(n: MdLink, actions: MarkdownActions): HTMLElement {
  const a = h('a', { class: 'md-link', role: 'link', tabindex: 0, title: n.href }, ...n.children.map((c) => nodeOf(c, actions)));
  const open = (e: Event) => {
    e.preventDefault();
    // The transcript item around it opens its entries on a click; a link's press is the link's.
    e.stopPropagation();
    actions.openLink(n.href);
  };
  a.addEventListener('click', open);
  a.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') open(e);
  });
  return a;
}

function codeBlock(n: MdCode, actions: MarkdownActions): HTMLElement {
  const copy = h(
    'button',
    { type: 'button', class: 'md-copy', 'aria-label': n.lang === '' ? 'Copy the code' : `Copy the ${n.lang} code` },
    h('span', { class: 'codicon codicon-copy', 'aria-hidden': 'true' }),
    'Copy',
  );
  copy.addEventListener('click', (e) => {
    e.stopPropagation();
    actions.copy(n.code);
  });
  const bar = h('div', { class: 'md-code-bar' }, n.lang === '' ? null : h('span', { class: 'md-code-lang' }, n.lang), copy);
  return h('div', { class: 'md-code' }, bar, h('pre', {}, h('code', {}, n.code)));
}

function nodeOf(n: MdNode, actions: MarkdownActions): Node {
  if (typeof n === 'string') return textOf(n);
  switch (n.tag) {
    case 'image':
      return h('span', { class: 'md-image' }, imageText(n));
    case 'a':
      return link(n, actions);
    case 'pre':
      return codeBlock(n, actions);
    default:
      return h(n.tag, { start: n.start, class: n.align === undefined ? undefined : `md-align-${n.align}` }, ...n.children.map((c) => nodeOf(c, actions)));
  }
}

/** A tree of `markdownTree` as DOM: its elements by `h`, its text as text nodes. */
export function markdownFragment(tree: readonly MdNode[], actions: MarkdownActions): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const n of tree) fragment.append(nodeOf(n, actions));
  return fragment;
}

/** Markdown text from the tape, safely: see `markdownTree` for what it may become. */
export const renderMarkdown = (text: string, actions: MarkdownActions): DocumentFragment => markdownFragment(markdownTree(text), actions);
