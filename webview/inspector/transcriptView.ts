import type { TranscriptItem } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';
import { DetailPane } from './detailPane';
import { badge, h } from './dom';

/** The conversation as the tape folds it: one item per message, its markers, its tool calls. */
export class TranscriptView {
  readonly element: HTMLElement;
  private readonly list = h('ol', { class: 'transcript', 'aria-label': 'Transcript' });
  private readonly detail: DetailPane;
  private readonly items = new Map<string, HTMLElement>();

  constructor(channel: HostChannel) {
    this.detail = new DetailPane(channel, 'Raw entries', 'transcript-detail');
    this.element = h('div', { class: 'split' }, h('div', { class: 'transcript-scroll' }, this.list), this.detail.element);
  }

  set(items: TranscriptItem[]): void {
    this.items.clear();
    this.list.replaceChildren();
    this.detail.clear();
    this.upsert(items);
  }

  /** New items go at the end; a changed one is redrawn in place (and keeps focus if it had it). */
  upsert(items: TranscriptItem[]): void {
    for (const item of items) {
      const el = this.renderItem(item);
      const old = this.items.get(item.messageId);
      if (old) {
        const focused = old.contains(document.activeElement);
        old.replaceWith(el);
        if (focused) el.focus();
      } else this.list.append(el);
      this.items.set(item.messageId, el);
    }
    if (this.items.size === 0) this.list.replaceChildren(h('li', { class: 'muted' }, 'No messages in this session.'));
    else this.list.querySelector(':scope > li.muted')?.remove();
  }

  onEntry(requestId: number, entry: string): boolean {
    return this.detail.accept(requestId, entry);
  }

  private renderItem(item: TranscriptItem): HTMLElement {
    const markers = h('span', { class: 'markers' }, ...item.markers.map((m) => badge(m, `marker-${m}`)));
    const tools = item.toolCalls.length === 0 ? null : h('ul', { class: 'tool-calls', 'aria-label': 'Tool calls' },
      ...item.toolCalls.map((t) => h('li', {},
        h('span', { class: 'tool-name' }, t.name), ' ',
        h('span', { class: 'tool-summary' }, t.summary), ' ',
        badge(t.resultStatus ?? 'no result', t.resultStatus === 'error' ? 'marker-error' : ''))));
    const li = h('li', { class: 'transcript-item', tabindex: 0, 'data-message-id': item.messageId, 'aria-controls': 'transcript-detail' },
      h('header', {}, h('span', { class: `role role-${item.role}` }, item.role), ' ', badge(item.status, `status-${item.status}`), ' ', markers, h('span', { class: 'muted entry-ref' }, `#${item.entryId}`)),
      h('div', { class: 'text' }, item.text),
      item.cut ? h('p', { class: 'muted' }, 'Cut at 4,000 characters; the entry has the whole text.') : null,
      tools);
    const open = () => {
      for (const other of this.items.values()) other.classList.remove('selected');
      li.classList.add('selected');
      this.detail.show(item.entryIds);
    };
    li.addEventListener('click', open);
    li.addEventListener('keydown', (e) => {
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
}
