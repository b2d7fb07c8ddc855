import type { HostChannel } from './channel';
import { h, textOf } from './dom';
import { markdownFragment, type MarkdownActions } from './markdown';
import type { MdNode } from './markdownTree';
import type { StateStore } from './state';

type Checkbox = HTMLElement & { checked: boolean };

/**
 * How the views show text from the tape (messages, compaction summaries, handoff notes): rendered
 * as Markdown, its links opened and its code copied by the host, or, with "Raw text" on, as the
 * exact text. Raw is one setting for the page, kept across reloads; each view showing such text
 * has its own box, and they all show and set it.
 */
export class TapeText {
  readonly actions: MarkdownActions;
  private readonly boxes: Checkbox[] = [];
  private readonly listeners: (() => void)[] = [];

  constructor(
    channel: HostChannel,
    private readonly store: StateStore,
  ) {
    this.actions = {
      // VS Code may ask the user first, who may take any time.
      openLink: (url) => void channel.request('openLink', { url }, { waitsForUser: true }).catch((e: unknown) => channel.report(e)),
      copy: (text) => channel.post({ type: 'copy', text }),
    };
  }

  get raw(): boolean {
    return this.store.get().raw === true;
  }

  /** Called after Raw text was switched: the views show their text again. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** A "Raw text" box for a view's toolbar. */
  control(): HTMLElement {
    const box = h('vscode-checkbox', { class: 'raw-toggle', label: 'Raw text', checked: this.raw }) as Checkbox;
    box.addEventListener('change', () => this.setRaw(box.checked));
    this.boxes.push(box);
    return box;
  }

  showRaw(el: HTMLElement, text: string): void {
    el.classList.remove('md');
    el.classList.add('raw');
    el.replaceChildren(textOf(text));
  }

  /** `tree` is the text's `markdownTree`. */
  showRendered(el: HTMLElement, tree: readonly MdNode[]): void {
    el.classList.remove('raw');
    el.classList.add('md');
    el.replaceChildren(markdownFragment(tree, this.actions));
  }

  private setRaw(on: boolean): void {
    if (on === this.raw) return;
    this.store.update({ raw: on });
    for (const b of this.boxes) b.checked = on;
    for (const l of this.listeners) l();
  }
}
