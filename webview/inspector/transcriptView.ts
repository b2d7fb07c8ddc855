import type { TranscriptItem, TranscriptPage } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';
import type { CheckpointActions } from './checkpointActions';
import { DetailPane } from './detailPane';
import { badge, h, num, setAttrs } from './dom';
import type { ForkAction } from './forkAction';
import { shortSessionName } from './lineageView';
import { markdownTree, type MdNode } from './markdownTree';
import type { TapeText } from './tapeText';

type TurnFileChanges = NonNullable<TranscriptItem['fileChanges']>;
type FileChange = TurnFileChanges['files'][number];

/** A changed file's marker, as VS Code's source control shows it. */
/** U+2212, the minus sign: "−4" reads as a count taken away, as diff summaries print it. */
const MINUS = '\u2212';
const CHANGE_LETTER: Record<FileChange['change'], string> = { added: 'A', modified: 'M', deleted: 'D' };

/** Earlier items asked for per press of "Show earlier messages". */
export const EARLIER_PAGE = 200;
/** How far outside the scrolled view a message's Markdown is rendered ahead of being seen. */
const RENDER_AHEAD = '800px 0px';

/**
 * The conversation as the tape folds it: one item per message, its markers, its tool calls. It
 * holds the items from `offset` to the end only: it opens on the host's last page, and earlier
 * pages are asked for one at a time, so a long session never crosses to the page whole.
 */
export class TranscriptView {
  readonly element: HTMLElement;
  private readonly list = h('ol', { class: 'transcript', 'aria-label': 'Transcript' });
  private readonly earlier = h('vscode-button', { class: 'transcript-earlier', secondary: true, icon: 'arrow-up', hidden: true }, 'Show earlier messages');
  private readonly status = h('p', { class: 'muted transcript-status', role: 'status' });
  private readonly scroller: HTMLElement;
  private readonly detail: DetailPane;
  private readonly items = new Map<string, HTMLElement>();
  /** Each held item as the host sent it: to find the one a replay's cursor is in, and to redraw it. */
  private readonly held = new Map<string, TranscriptItem>();
  /** The replay cursor's entry, marked on the item holding it (also one drawn later). */
  private cursor: number | null = null;
  /** Of the first item held, in the whole transcript. */
  private offset = 0;
  private total = 0;
  /** The head the items held are up to date with: an unknown item made only of entries after it is new. */
  private head = 0;
  /** The earlier page asked for: a new last page (`set`) drops it, so its late answer is ignored. */
  private asked: Promise<TranscriptPage> | null = null;
  /**
   * Each held message's Markdown, parsed once: a message is parsed when it first comes near the
   * scrolled view (`pending` until then, showing its text), so thousands held cost only what is seen.
   */
  private readonly trees = new Map<string, { text: string; tree: readonly MdNode[] }>();
  private readonly pending = new Map<Element, TranscriptItem>();
  private readonly observer: IntersectionObserver;

  constructor(
    private readonly channel: HostChannel,
    private readonly forks: ForkAction,
    private readonly checkpoints: CheckpointActions,
    private readonly text: TapeText,
  ) {
    this.detail = new DetailPane(channel, 'Raw entries', 'transcript-detail');
    // Where "Restore Files to Here" is offered changed, or Raw text: the held items are drawn again, in place.
    checkpoints.onChange(() => this.add([...this.held.values()], 'end'));
    text.onChange(() => this.add([...this.held.values()], 'end'));
    this.earlier.addEventListener('click', () => this.askEarlier());
    this.scroller = h('div', { class: 'transcript-scroll' }, this.earlier, this.list);
    this.observer = new IntersectionObserver((seen) => this.renderSeen(seen), { root: this.scroller, rootMargin: RENDER_AHEAD });
    // The count and Raw text above the scrolled list: the box stays at hand wherever one reads.
    const bar = h('div', { class: 'transcript-bar' }, this.status, text.control());
    this.element = h('div', { class: 'split' }, h('div', { class: 'transcript-pane' }, bar, this.scroller), this.detail.element);
  }

  /** The host's last page: everything held before is replaced. */
  set(page: TranscriptPage): void {
    this.items.clear();
    this.held.clear();
    this.trees.clear();
    this.pending.clear();
    this.observer.disconnect();
    this.cursor = null;
    this.list.replaceChildren();
    this.detail.clear();
    this.asked = null;
    this.checkpoints.setCheckpointsFrom(page.checkpointsFrom);
    this.offset = page.offset;
    this.total = page.total;
    this.head = page.headEntryId;
    this.add(page.items, 'end');
    this.update();
    // The latest message is what one opens a transcript for.
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  /** A reply to "Show earlier messages": prepended, with the items on screen staying where they were. */
  private prepend(page: TranscriptPage): void {
    this.asked = null;
    this.checkpoints.setCheckpointsFrom(page.checkpointsFrom);
    const height = this.scroller.scrollHeight;
    this.add(page.items, 'start');
    this.scroller.scrollTop += this.scroller.scrollHeight - height;
    this.offset = Math.min(this.offset, page.offset);
    // The tape only grows: a reply sent before an `appended` we merged must not shrink the count.
    this.total = Math.max(this.total, page.total);
    const focused = this.earlier.matches(':focus');
    this.update();
    if (focused && this.earlier.hidden) this.list.querySelector<HTMLElement>('li[tabindex]')?.focus();
  }

  /**
   * Items the tape's growth made new or changed: a held one is redrawn in place (keeping focus), a
   * new one goes at the end. A change to an item not held is dropped: it is read when asked for.
   */
  merge(items: TranscriptItem[], headEntryId: number, checkpointsFrom: number | undefined): void {
    this.checkpoints.setCheckpointsFrom(checkpointsFrom);
    const fresh = items.filter((i) => this.items.has(i.messageId) || this.offset === 0 || i.entryIds.every((e) => e > this.head));
    this.total += fresh.filter((i) => !this.items.has(i.messageId)).length;
    this.head = headEntryId;
    this.add(fresh, 'end');
    this.update();
  }

  private askEarlier(): void {
    if (this.asked !== null || this.offset === 0) return;
    const offset = Math.max(0, this.offset - EARLIER_PAGE);
    const asked = this.channel.request('transcript', { offset, limit: this.offset - offset });
    this.asked = asked;
    this.update();
    asked.then(
      (page) => {
        if (asked === this.asked) this.prepend(page);
      },
      (e: unknown) => this.channel.report(e),
    );
  }

  /** Held items are redrawn in place; the others go at the `at` end, in the order given. */
  private add(items: TranscriptItem[], at: 'start' | 'end'): void {
    const before = at === 'start' ? this.list.firstElementChild : null;
    for (const item of items) {
      const el = this.renderItem(item);
      const old = this.items.get(item.messageId);
      if (old) {
        const focused = old.contains(document.activeElement);
        this.forget(old);
        old.replaceWith(el);
        if (focused) el.focus();
      } else this.list.insertBefore(el, before);
      this.items.set(item.messageId, el);
      this.held.set(item.messageId, item);
    }
  }

  /**
   * Marks the item holding the replay cursor's entry (none when the replay ended), and scrolls it
   * into view when the transcript is shown. The focus stays where it is.
   */
  markCursor(entryId: number | null): void {
    this.cursor = entryId;
    for (const el of this.list.querySelectorAll('.at-cursor')) {
      el.classList.remove('at-cursor');
      el.removeAttribute('aria-current');
    }
    if (entryId === null) return;
    for (const [messageId, { entryIds }] of this.held) {
      if (!entryIds.includes(entryId)) continue;
      const el = this.items.get(messageId);
      if (!el) return;
      el.classList.add('at-cursor');
      el.setAttribute('aria-current', 'step');
      if (el.offsetParent !== null) el.scrollIntoView({ block: 'nearest' });
      return;
    }
  }

  private update(): void {
    if (this.items.size === 0) this.list.replaceChildren(h('li', { class: 'muted' }, 'No messages in this session.'));
    else this.list.querySelector(':scope > li.muted')?.remove();
    this.earlier.hidden = this.offset === 0;
    // Busy, not disabled: a disabled button drops the keyboard focus the next press needs.
    setAttrs(this.earlier, { 'aria-busy': this.asked !== null ? 'true' : undefined });
    this.status.textContent = this.offset === 0 ? '' : `The last ${num(this.items.size)} of ${num(this.total)} messages.`;
  }

  private renderItem(item: TranscriptItem): HTMLElement {
    const markers = h('span', { class: 'markers' }, ...item.markers.map((m) => badge(markerText(m, item), `marker-${m}`)));
    const fork = item.forkAt === undefined || !this.forks.enabled ? null : this.forkButton(item.forkAt);
    // The message that ends a turn restores to the files as the turn left them; any other to the checkpoint at or before it.
    const restoreAt = item.fileChanges?.entryId ?? item.entryId;
    const restore = this.checkpoints.restorableAt(restoreAt) ? this.restoreButton(restoreAt) : null;
    const tools =
      item.toolCalls.length === 0
        ? null
        : h(
            'ul',
            { class: 'tool-calls', 'aria-label': 'Tool calls' },
            ...item.toolCalls.map((t) =>
              h(
                'li',
                {},
                h('span', { class: 'tool-name' }, t.name),
                ' ',
                h('span', { class: 'tool-summary' }, t.summary),
                ' ',
                badge(t.resultStatus ?? 'no result', t.resultStatus === 'error' ? 'marker-error' : ''),
              ),
            ),
          );
    const li = h(
      'li',
      { class: 'transcript-item', tabindex: 0, 'data-message-id': item.messageId, 'aria-controls': 'transcript-detail' },
      h(
        'header',
        {},
        h('span', { class: `role role-${item.role}` }, item.role),
        ' ',
        badge(item.status, `status-${item.status}`),
        ' ',
        markers,
        h('span', { class: 'muted entry-ref' }, `#${item.entryId}`),
        fork,
        restore,
      ),
      this.textOf(item),
      item.cut ? h('p', { class: 'muted' }, 'Cut at 4,000 characters; the entry has the whole text.') : null,
      tools,
      item.fileChanges === undefined ? null : this.fileChanges(item.fileChanges),
    );
    const open = () => {
      for (const other of this.items.values()) other.classList.remove('selected');
      li.classList.add('selected');
      this.detail.show(item.entryIds);
    };
    li.addEventListener('click', open);
    if (this.cursor !== null && item.entryIds.includes(this.cursor)) {
      li.classList.add('at-cursor');
      li.setAttribute('aria-current', 'step');
    }
    li.addEventListener('keydown', (e) => {
      // Keys on the item's own controls (Fork from here, a changed file) are theirs.
      if (e.target !== li) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        open();
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        (e.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling)?.closest<HTMLElement>('li[tabindex]')?.focus();
      }
    });
    return li;
  }

  /** The message's text: raw, rendered if it was parsed before, else its text until it comes into view. */
  private textOf(item: TranscriptItem): HTMLElement {
    const el = h('div', { class: 'text' });
    const parsed = this.trees.get(item.messageId);
    if (this.text.raw) this.text.showRaw(el, item.text);
    else if (parsed?.text === item.text) this.text.showRendered(el, parsed.tree);
    else {
      this.text.showRaw(el, item.text);
      this.pending.set(el, item);
      this.observer.observe(el);
    }
    return el;
  }

  /** Renders the messages that came near the view; a transcript scrolled to its end stays there. */
  private renderSeen(seen: IntersectionObserverEntry[]): void {
    const s = this.scroller;
    const atEnd = s.scrollTop > 0 && s.scrollTop + s.clientHeight >= s.scrollHeight - 2;
    for (const { target, isIntersecting } of seen) {
      const item = this.pending.get(target);
      if (!isIntersecting || item === undefined) continue;
      this.observer.unobserve(target);
      this.pending.delete(target);
      const tree = markdownTree(item.text);
      this.trees.set(item.messageId, { text: item.text, tree });
      this.text.showRendered(target as HTMLElement, tree);
    }
    if (atEnd) s.scrollTop = s.scrollHeight;
  }

  /** An item drawn again: its old text no longer waits to be rendered. */
  private forget(old: HTMLElement): void {
    const text = old.querySelector(':scope > .text');
    if (text === null || !this.pending.delete(text)) return;
    this.observer.unobserve(text);
  }

  private forkButton(entryId: number): HTMLElement {
    const button = h(
      'button',
      { type: 'button', class: 'fork-here', 'aria-label': `Fork from here: a new session with everything up to entry #${entryId}` },
      h('span', { class: 'codicon codicon-repo-forked', 'aria-hidden': 'true' }),
      ' Fork from here',
    );
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      this.forks.fork(entryId);
    });
    return button;
  }

  private restoreButton(entryId: number): HTMLElement {
    const button = h(
      'button',
      {
        type: 'button',
        class: 'restore-here',
        'aria-label': `Restore Files to Here: the workspace's files back to the checkpoint at or before entry #${entryId}`,
      },
      h('span', { class: 'codicon codicon-history', 'aria-hidden': 'true' }),
      ' Restore Files to Here',
    );
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      this.checkpoints.restore(entryId);
    });
    return button;
  }

  /** "3 files changed +12 −4" and the files, each opening its diff between the turn's two checkpoints. */
  private fileChanges(changes: TurnFileChanges): HTMLElement {
    const count = changes.files.length + changes.filesOmitted;
    const added = changes.files.reduce((n, f) => n + (f.added ?? 0), 0);
    const removed = changes.files.reduce((n, f) => n + (f.removed ?? 0), 0);
    return h(
      'section',
      { class: 'file-changes', 'aria-label': 'Files this turn changed' },
      h(
        'p',
        { class: 'file-changes-summary' },
        `${num(count)} ${count === 1 ? 'file' : 'files'} changed `,
        h('span', { class: 'lines-added' }, `+${num(added)}`),
        ' ',
        h('span', { class: 'lines-removed' }, `${MINUS}${num(removed)}`),
      ),
      h('ul', { class: 'file-list' }, ...changes.files.map((f) => h('li', {}, this.fileLine(changes, f)))),
      changes.filesOmitted > 0 ? h('p', { class: 'muted' }, `and ${num(changes.filesOmitted)} more, not listed and not counted above`) : null,
    );
  }

  /** A changed file: a button opening its diff where that is offered, else the same line as text. */
  private fileLine(changes: TurnFileChanges, f: FileChange): HTMLElement {
    const binary = f.added === null || f.removed === null;
    const lines = binary
      ? h('span', { class: 'file-lines muted' }, 'binary')
      : h(
          'span',
          { class: 'file-lines' },
          h('span', { class: 'lines-added' }, `+${num(f.added)}`),
          ' ',
          h('span', { class: 'lines-removed' }, `${MINUS}${num(f.removed)}`),
        );
    const words = binary ? 'binary' : `${num(f.added)} lines added, ${num(f.removed)} removed`;
    const parts = [
      // The letter stands for a word: the word is what a screen reader says and a hover shows.
      h('span', { class: `change-marker change-${f.change}`, role: 'img', 'aria-label': f.change, title: f.change }, CHANGE_LETTER[f.change]),
      h('span', { class: 'file-path' }, f.path),
      lines,
    ];
    if (!this.checkpoints.diffsOffered) return h('span', { class: 'file-change' }, ...parts);
    const button = h(
      'button',
      { type: 'button', class: 'file-change', 'aria-label': `${f.path}, ${f.change}, ${words}: open the diff of the turn's change` },
      ...parts,
    );
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      this.checkpoints.openDiff(changes.beforeId, changes.afterId, f.path);
    });
    return button;
  }
}

/** A marker's words; merged and inherited messages say where they come from. */
function markerText(marker: TranscriptItem['markers'][number], item: TranscriptItem): string {
  const origin = item.origin;
  if (marker === 'merged' && origin?.via === 'merge') return `merged from ${shortSessionName(origin.sessionId)} #${origin.entryId}`;
  if (marker === 'inherited') return origin?.via === 'parent' ? `from parent ${shortSessionName(origin.sessionId)} #${origin.entryId}` : 'from parent';
  return marker;
}
