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
    const ids = items.filter((r) => r.source === 'manifest').map((r) => r.entryId);
    // Keep the user's pair across a refresh; otherwise compare the last two consecutive requests (of those a manifest records).
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
    const head = [
      'Compare',
      'Request',
      'Model',
      'Est. prompt',
      'Input',
      'Cached',
      'Cache writes',
      'Cache hit',
      'Output',
      'Attempts',
      'Duration',
      ...(writable ? ['Re-run'] : []),
    ];
    const table = h(
      'table',
      { class: 'data', id: TABLE_ID },
      h(
        'caption',
        {},
        this.items.some((r) => r.source === 'manifest') ? 'Model requests (pick two to compare)' : 'Model requests (from the recorded model calls)',
      ),
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...this.items.map((r) => this.row(r, writable))),
      this.totals(writable),
    );
    this.element.replaceChildren(h('div', { class: 'table-scroll' }, table), tokenPlot(this.items, TABLE_ID), this.diffSlot);
  }

  /**
   * A request's row. Only requests a manifest records can be compared and re-run; another agent's
   * (from its model calls alone) show what the call recorded.
   */
  private row(r: RequestItem, writable: boolean): HTMLElement {
    const manifest = r.source === 'manifest';
    let box: HTMLElement | null = null;
    if (manifest) {
      box = h('vscode-checkbox', { 'aria-label': `Compare request #${r.entryId}`, checked: this.picked.includes(r.entryId) });
      box.addEventListener('change', () => this.toggle(r.entryId));
    }
    const name = r.turnId !== null && r.requestSeq !== null ? `#${r.entryId} (${r.turnId} · ${r.requestSeq})` : `#${r.entryId}`;
    return h(
      'tr',
      { 'data-entry-id': r.entryId, 'data-source': r.source, class: this.picked.includes(r.entryId) ? 'picked' : undefined },
      h('td', {}, box),
      h('th', { scope: 'row' }, name),
      h('td', {}, r.model),
      h('td', { class: 'n' }, num(r.estimatedPrompt)),
      ...this.figures(r),
      writable ? h('td', {}, manifest ? this.rerunButton(r.entryId) : null) : null,
    );
  }

  private figures(
    r: Pick<RequestItem, 'inputTokens' | 'cachedTokens' | 'cacheCreationTokens' | 'cacheHitShare' | 'outputTokens' | 'attempts' | 'durationMs'>,
  ): HTMLElement[] {
    return [
      h('td', { class: 'n' }, num(r.inputTokens)),
      h('td', { class: 'n' }, num(r.cachedTokens)),
      h('td', { class: 'n' }, num(r.cacheCreationTokens)),
      h('td', { class: 'n' }, r.cacheHitShare === null ? '—' : `${Math.round(r.cacheHitShare * 100)}%`),
      h('td', { class: 'n' }, num(r.outputTokens)),
      h('td', { class: 'n' }, num(r.attempts)),
      h('td', { class: 'n' }, r.durationMs === null ? '—' : `${num(r.durationMs)} ms`),
    ];
  }

  /** The session's sums; a figure no request recorded stays "—", and the cache hit is over the whole prompt of all of them. */
  private totals(writable: boolean): HTMLElement {
    const sum = (pick: (r: RequestItem) => number | null): number | null =>
      this.items.reduce<number | null>((t, r) => (pick(r) === null ? t : (t ?? 0) + (pick(r) ?? 0)), null);
    const prompt = sum((r) => (r.cacheHitShare === null ? null : r.promptTokens));
    const cachedOfShared = sum((r) => (r.cacheHitShare === null ? null : r.cachedTokens));
    return h(
      'tfoot',
      {},
      h(
        'tr',
        { class: 'totals' },
        h('td', {}),
        h('th', { scope: 'row' }, `${num(this.items.length)} requests`),
        h('td', {}),
        h('td', { class: 'n' }, num(sum((r) => r.estimatedPrompt))),
        ...this.figures({
          inputTokens: sum((r) => r.inputTokens),
          cachedTokens: sum((r) => r.cachedTokens),
          cacheCreationTokens: sum((r) => r.cacheCreationTokens),
          cacheHitShare: prompt !== null && prompt > 0 && cachedOfShared !== null ? Math.min(1, cachedOfShared / prompt) : null,
          outputTokens: sum((r) => r.outputTokens),
          attempts: this.items.reduce((t, r) => t + r.attempts, 0),
          durationMs: sum((r) => r.durationMs),
        }),
        writable ? h('td', {}) : null,
      ),
    );
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
      const why = this.items.some((r) => r.source === 'manifest')
        ? 'Pick two requests to see what changed between them.'
        : 'These requests were recorded by another agent without the context it sent, so there is nothing to compare between them.';
      this.diffSlot.replaceChildren(h('p', { class: 'muted' }, why));
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
