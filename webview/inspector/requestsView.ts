import type { RequestDiff, RequestItem } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';
import { diffView } from './diffView';
import { h, num } from './dom';
import { tokenPlot } from './plot';
import type { RerunActions } from './rerunActions';

const TABLE_ID = 'requests-table';

/** One row per model request; any two of them can be compared (by default the last two). */
export class RequestsView {
  readonly element = h('div', { class: 'requests-view' });
  private items: RequestItem[] = [];
  /** Entry ids of the compared requests, in the order they were picked. */
  private picked: number[] = [];
  /** The diff asked for last: the answer to an earlier pick is dropped. */
  private diffAsked: Promise<RequestDiff> | null = null;
  private readonly diffSlot = h('div', { class: 'diff-slot', 'aria-live': 'polite' });

  constructor(
    private readonly channel: HostChannel,
    private readonly reruns: RerunActions,
  ) {}

  set(items: RequestItem[]): void {
    this.items = items;
    const ids = items.map((r) => r.entryId);
    // Keep the user's pair across a refresh; otherwise compare the last two consecutive requests.
    this.picked = this.picked.length === 2 && this.picked.every((id) => ids.includes(id)) ? this.picked : ids.slice(-2);
    this.render();
    this.requestDiff();
  }

  private render(): void {
    if (this.items.length === 0) {
      this.element.replaceChildren(h('p', { class: 'muted' }, 'No model requests in this session.'));
      return;
    }
    const writable = this.reruns.enabled;
    const head = ['Compare', 'Request', 'Model', 'Est. prompt', 'Input', 'Cached', 'Output', 'Attempts', 'Duration', ...(writable ? ['Re-run'] : [])];
    const table = h(
      'table',
      { class: 'data', id: TABLE_ID },
      h('caption', {}, 'Model requests (pick two to compare)'),
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        ...this.items.map((r) => {
          const box = h('vscode-checkbox', { 'aria-label': `Compare request #${r.entryId}`, checked: this.picked.includes(r.entryId) });
          box.addEventListener('change', () => this.toggle(r.entryId));
          return h(
            'tr',
            { 'data-entry-id': r.entryId, class: this.picked.includes(r.entryId) ? 'picked' : undefined },
            h('td', {}, box),
            h('th', { scope: 'row' }, `#${r.entryId} (${r.turnId} · ${r.requestSeq})`),
            h('td', {}, r.model),
            h('td', { class: 'n' }, num(r.estimatedPrompt)),
            h('td', { class: 'n' }, num(r.inputTokens)),
            h('td', { class: 'n' }, num(r.cachedTokens)),
            h('td', { class: 'n' }, num(r.outputTokens)),
            h('td', { class: 'n' }, num(r.attempts)),
            h('td', { class: 'n' }, r.durationMs === null ? '—' : `${num(r.durationMs)} ms`),
            writable ? h('td', {}, this.rerunButton(r.entryId)) : null,
          );
        }),
      ),
    );
    this.element.replaceChildren(h('div', { class: 'table-scroll' }, table), tokenPlot(this.items, TABLE_ID), this.diffSlot);
  }

  /** Model and variation are picked in VS Code; the result opens beside the recorded response. */
  private rerunButton(entryId: number): HTMLElement {
    const button = h('vscode-button', { class: 'rerun', secondary: true, 'aria-label': `Re-run request #${entryId}…` }, 'Re-run…');
    button.addEventListener('click', () => this.reruns.rerun(entryId));
    return button;
  }

  /** A third pick drops the oldest, so there are always at most two. */
  private toggle(entryId: number): void {
    this.picked = this.picked.includes(entryId) ? this.picked.filter((id) => id !== entryId) : [...this.picked, entryId].slice(-2);
    this.render();
    this.requestDiff();
  }

  private requestDiff(): void {
    if (this.picked.length !== 2) {
      this.diffAsked = null;
      this.diffSlot.replaceChildren(h('p', { class: 'muted' }, 'Pick two requests to see what changed between them.'));
      return;
    }
    const [a, b] = [...this.picked].sort((x, y) => x - y);
    const asked = this.channel.request('diff', { a, b });
    this.diffAsked = asked;
    this.diffSlot.replaceChildren(h('p', { class: 'muted', 'aria-busy': 'true' }, `Comparing #${a} and #${b}…`));
    asked.then(
      (diff) => {
        if (asked === this.diffAsked) this.diffSlot.replaceChildren(diffView(diff));
      },
      (e: unknown) => this.channel.report(e),
    );
  }
}
