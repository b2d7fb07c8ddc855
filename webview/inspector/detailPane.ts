import { h, prettyJson } from './dom';
import type { HostChannel } from './channel';

/**
 * Shows raw entries as JSON, each fetched with an `entry` request. Showing something else forgets
 * the requests in flight, so a late reply never lands under the wrong heading.
 */
export class DetailPane {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private pending = new Map<number, HTMLElement>();

  constructor(private readonly channel: HostChannel, private readonly label: string, id: string) {
    this.body = h('div', { class: 'detail-body' }, h('p', { class: 'muted' }, 'Select an item to see its entries.'));
    this.element = h('section', { class: 'detail', id, 'aria-label': label, tabindex: -1 }, h('h2', {}, label), this.body);
  }

  show(entryIds: number[]): void {
    this.pending.clear();
    this.body.replaceChildren();
    for (const entryId of entryIds) {
      const pre = h('pre', { class: 'json', 'aria-busy': 'true' }, 'Loading…');
      const copy = h('vscode-button', { secondary: true, icon: 'copy', 'aria-label': `Copy entry #${entryId}`, disabled: true }, 'Copy');
      copy.addEventListener('click', () => {
        if (!copy.hasAttribute('disabled')) this.channel.post({ type: 'copy', text: pre.textContent ?? '' });
      });
      const requestId = this.channel.requestId();
      this.pending.set(requestId, pre);
      this.body.append(h('article', { class: 'detail-entry', 'data-entry-id': entryId }, h('header', {}, h('h3', {}, `Entry #${entryId}`), copy), pre));
      this.channel.post({ type: 'entry', requestId, entryId });
    }
  }

  clear(): void {
    this.pending.clear();
    this.body.replaceChildren(h('p', { class: 'muted' }, `${this.label}: nothing selected.`));
  }

  /** Takes an `entry` reply if it is one this pane is waiting for. */
  accept(requestId: number, entry: string): boolean {
    const pre = this.pending.get(requestId);
    if (!pre) return false;
    this.pending.delete(requestId);
    pre.textContent = prettyJson(entry);
    pre.removeAttribute('aria-busy');
    pre.closest('article')?.querySelector('vscode-button')?.removeAttribute('disabled');
    return true;
  }
}
