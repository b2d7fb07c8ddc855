import { h, prettyJson, textOf } from './dom';
import type { HostChannel } from './channel';

/**
 * Shows raw entries as JSON, each fetched with an `entry` request. Showing something else takes the
 * entries shown off the pane, so a late reply, finding its place gone, never lands under the
 * wrong heading.
 */
export class DetailPane {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;

  constructor(
    private readonly channel: HostChannel,
    private readonly label: string,
    id: string,
  ) {
    this.body = h('div', { class: 'detail-body' }, h('p', { class: 'muted' }, 'Select an item to see its entries.'));
    this.element = h('section', { class: 'detail', id, 'aria-label': label, tabindex: -1 }, h('h2', {}, label), this.body);
  }

  show(entryIds: number[]): void {
    this.body.replaceChildren();
    for (const entryId of entryIds) {
      const pre = h('pre', { class: 'json', 'aria-busy': 'true' }, 'Loading…');
      const copy = h('vscode-button', { secondary: true, icon: 'copy', 'aria-label': `Copy entry #${entryId}`, disabled: true }, 'Copy');
      copy.addEventListener('click', () => {
        if (!copy.hasAttribute('disabled')) this.channel.post({ type: 'copy', text: pre.textContent ?? '' });
      });
      this.body.append(h('article', { class: 'detail-entry', 'data-entry-id': entryId }, h('header', {}, h('h3', {}, `Entry #${entryId}`), copy), pre));
      this.channel.request('entry', { entryId }).then(
        (reply) => {
          if (!this.body.contains(pre)) return;
          pre.replaceChildren(textOf(prettyJson(reply.entry)));
          pre.removeAttribute('aria-busy');
          copy.removeAttribute('disabled');
        },
        (e: unknown) => this.channel.report(e),
      );
    }
  }

  clear(): void {
    this.body.replaceChildren(h('p', { class: 'muted' }, `${this.label}: nothing selected.`));
  }
}
