import type { EntryListFilter, EntryRow } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';
import { DetailPane } from './detailPane';
import { h, num, setAttrs, time } from './dom';
import { EntryPages, PAGE_SIZE, type EntriesPage } from './entryPages';
import type { ForkAction } from './forkAction';
import type { StateStore } from './state';
import { VirtualList } from './virtualList';

const KINDS = ['message', 'system', 'tool_call', 'tool_result', 'error', 'anchor', 'event'] as const;
/** A kind in at most six characters, for a list too narrow for the whole word beside the preview. */
const SHORT_KINDS: Record<EntryRow['kind'], string> = {
  message: 'msg',
  system: 'sys',
  tool_call: 'call',
  tool_result: 'result',
  error: 'error',
  anchor: 'anchor',
  event: 'event',
};
const ROW_HEIGHT = 22;
const DEBOUNCE_MS = 150;

/** The raw entries: a filter bar, the virtualized list, and the selected entry's JSON. */
export class EntriesView {
  readonly element: HTMLElement;
  private readonly list: VirtualList;
  private readonly pages: EntryPages;
  private readonly detail: DetailPane;
  private readonly count = h('span', { class: 'muted', role: 'status' });
  private readonly forkButton = h('vscode-button', { secondary: true, icon: 'repo-forked', disabled: true }, 'Fork from here');
  private readonly kindBoxes = new Map<string, HTMLElement & { checked: boolean }>();
  private readonly nameField: HTMLElement & { value: string };
  private readonly textField: HTMLElement & { value: string };
  private debounce = 0;
  /** The offset to restore once the list knows its length (a scroll offset past the end is clamped). */
  private pendingScroll: number | null = null;

  constructor(
    channel: HostChannel,
    private readonly store: StateStore,
    private readonly forks: ForkAction,
  ) {
    this.pages = new EntryPages(
      (offset, limit) => channel.request('entries', { offset, limit, filter: store.get().filter }),
      (page) => this.onEntries(page),
      (e) => channel.report(e),
    );
    this.list = new VirtualList({
      label: 'Entries',
      idPrefix: 'entry-row',
      rowHeight: ROW_HEIGHT,
      renderRow: (index, row) => this.renderRow(index, row),
      onRange: (first, last) => this.pages.ensure(first, last),
      onSelect: (index) => {
        this.store.update({ selectedEntryId: this.pages.row(index)?.entryId ?? null });
        this.updateFork();
      },
      onOpen: (index) => this.open(index),
      onScroll: (scrollTop) => {
        if (this.pendingScroll === null) this.store.update({ scrollTop });
      },
    });
    this.detail = new DetailPane(channel, 'Entry', 'entry-detail');

    const filter = store.get().filter;
    const kinds = h('fieldset', { class: 'kinds' }, h('legend', {}, 'Kinds'));
    for (const kind of KINDS) {
      const box = h('vscode-checkbox', { label: kind, checked: !filter.kinds || filter.kinds.includes(kind) }) as HTMLElement & { checked: boolean };
      box.addEventListener('change', () => this.applyFilter());
      this.kindBoxes.set(kind, box);
      kinds.append(box);
    }
    this.nameField = h('vscode-textfield', { id: 'filter-name', placeholder: 'message/', value: filter.name ?? '' }) as HTMLElement & { value: string };
    this.textField = h('vscode-textfield', { id: 'filter-text', placeholder: 'words, "phrases", prefix*', value: filter.text ?? '' }) as HTMLElement & {
      value: string;
    };
    for (const field of [this.nameField, this.textField]) {
      field.addEventListener('input', () => {
        clearTimeout(this.debounce);
        this.debounce = window.setTimeout(() => this.applyFilter(), DEBOUNCE_MS);
      });
    }
    const bar = h(
      'div',
      { class: 'filter-bar', role: 'search', 'aria-label': 'Filter entries' },
      kinds,
      h('span', { class: 'field' }, h('label', { for: 'filter-name' }, 'Name prefix'), this.nameField),
      h('span', { class: 'field' }, h('label', { for: 'filter-text' }, 'Text'), this.textField),
      this.count,
    );
    this.forkButton.addEventListener('click', () => {
      const { selectedEntryId } = this.store.get();
      if (!this.forkButton.hasAttribute('disabled') && selectedEntryId !== null) this.forks.fork(selectedEntryId);
    });
    forks.onChange(() => this.updateFork());
    // Before the list in the tab order: Shift+Tab from a selected row reaches it.
    const actions = h('div', { class: 'entry-actions' }, this.forkButton);
    this.element = h('div', { class: 'entries-view' }, bar, actions, h('div', { class: 'split' }, this.list.element, this.detail.element));
    this.updateFork();
  }

  /** (Re)loads from the start of a session, keeping the saved offset and selection. */
  start(): void {
    const { scrollTop, selectedEntryId } = this.store.get();
    this.pages.reset();
    this.list.select(null);
    this.list.setTotal(0);
    this.pendingScroll = scrollTop;
    const first = Math.floor(scrollTop / ROW_HEIGHT);
    this.pages.ensure(first, first + PAGE_SIZE - 1);
    if (selectedEntryId !== null) this.detail.show([selectedEntryId]);
    else this.detail.clear();
  }

  /** The tab became visible: the list has a height only now, and a hidden list forgot its offset. */
  shown(): void {
    const { scrollTop } = this.store.get();
    if (this.pendingScroll === null && this.list.element.scrollTop !== scrollTop) this.list.setScrollTop(scrollTop);
    this.list.render();
  }

  /** A page the cache took: the list's length, the count, a pending scroll and selection follow. */
  private onEntries({ offset, rows }: EntriesPage): void {
    const known = this.pages.total ?? 0;
    if (known !== this.list.length) this.list.setTotal(known);
    this.count.textContent = `${num(known)} entries`;
    if (this.pendingScroll !== null) {
      this.list.setScrollTop(this.pendingScroll);
      this.pendingScroll = null;
    }
    this.reselect(offset, rows);
    this.list.render();
  }

  /** Live rows: merged at the end when they pass the filter; a text search stays the ranked snapshot it was. */
  onAppended(rows: EntryRow[]): void {
    const f = this.store.get().filter;
    if (f.text || this.pages.total === null) return;
    const passing = rows.filter((r) => (!f.kinds || f.kinds.includes(r.kind)) && (!f.name || r.name.startsWith(f.name)));
    if (passing.length === 0) return;
    this.pages.append(passing);
    this.list.setTotal(this.pages.total ?? 0);
    this.count.textContent = `${num(this.pages.total ?? 0)} entries`;
  }

  /**
   * Selects an entry by id. Entry ids are dense from 1 in append order, so without a filter the
   * entry's row is `entryId - 1`; any filter is cleared for that reason.
   */
  reveal(entryId: number): void {
    const f = this.store.get().filter;
    const index = entryId - 1;
    this.store.update({ selectedEntryId: entryId, scrollTop: Math.max(0, index * ROW_HEIGHT - 4 * ROW_HEIGHT) });
    if (f.kinds || f.name || f.text) {
      for (const box of this.kindBoxes.values()) box.checked = true;
      this.nameField.value = '';
      this.textField.value = '';
      this.store.update({ filter: {} });
      this.start();
    } else if (this.pages.total !== null && index < this.pages.total) {
      this.list.select(index);
      this.detail.show([entryId]);
    } else this.start();
  }

  focus(): void {
    this.list.element.focus();
  }

  /**
   * The replay cursor moved to `entryId`: selected and scrolled to as `reveal` does, without the
   * focus. A list not loaded yet only keeps it as the selection to restore when it loads.
   */
  follow(entryId: number, loaded: boolean): void {
    if (loaded) this.reveal(entryId);
    else this.store.update({ selectedEntryId: entryId, scrollTop: Math.max(0, (entryId - 5) * ROW_HEIGHT) });
    this.updateFork();
  }

  /** Forking needs a selected entry and a tape this window may write. */
  private updateFork(): void {
    const { selectedEntryId } = this.store.get();
    const enabled = this.forks.enabled && selectedEntryId !== null;
    setAttrs(this.forkButton, {
      disabled: !enabled,
      hidden: !this.forks.enabled,
      'aria-label':
        selectedEntryId === null ? 'Fork from here: select an entry first' : `Fork from here: a new session with everything up to entry #${selectedEntryId}`,
    });
  }

  private applyFilter(): void {
    const kinds = KINDS.filter((k) => this.kindBoxes.get(k)?.checked);
    const filter: EntryListFilter = {};
    if (kinds.length < KINDS.length) filter.kinds = kinds;
    if (this.nameField.value) filter.name = this.nameField.value;
    if (this.textField.value.trim()) filter.text = this.textField.value.trim();
    this.store.update({ filter, scrollTop: 0, selectedEntryId: null });
    this.start();
    this.updateFork();
  }

  /** After a restore or reveal the selection is known by entry id until its row arrives. */
  private reselect(offset: number, rows: EntryRow[]): void {
    const wanted = this.store.get().selectedEntryId;
    if (wanted === null || this.list.selectedIndex !== null) return;
    const i = rows.findIndex((r) => r.entryId === wanted);
    if (i >= 0) this.list.select(offset + i);
  }

  private open(index: number): void {
    const row = this.pages.row(index);
    if (row) this.detail.show([row.entryId]);
  }

  private renderRow(index: number, el: HTMLElement): void {
    const row = this.pages.row(index);
    if (!row) {
      el.replaceChildren(h('span', { class: 'muted' }, `#${index + 1} …`));
      el.setAttribute('aria-busy', 'true');
      delete el.dataset.entryId;
      return;
    }
    el.removeAttribute('aria-busy');
    el.dataset.entryId = String(row.entryId);
    const when = time(row.createdAt);
    // Both forms of the kind and the time are there; the list's width decides which one shows (media/inspector.css).
    el.replaceChildren(
      h('span', { class: 'col-id' }, `#${row.entryId}`),
      h(
        'span',
        { class: `col-kind kind-${row.kind}`, title: row.kind },
        h('span', { class: 'long' }, row.kind),
        h('span', { class: 'short' }, SHORT_KINDS[row.kind]),
      ),
      h('span', { class: 'col-name', title: row.name }, row.name),
      h('span', { class: 'col-summary', title: row.summary }, row.summary),
      h('span', { class: 'col-time', title: when }, h('span', { class: 'year' }, when.slice(0, 5)), when.slice(5)),
    );
  }
}
