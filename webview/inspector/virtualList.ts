import { h } from './dom';

/** Most row elements in the DOM at any time, whatever the list's length. */
export const MAX_ROWS = 200;
const OVERSCAN = 20;

export interface VirtualListOptions {
  label: string;
  idPrefix: string;
  rowHeight: number;
  /** Fills a row element for `index` (a placeholder when the row is not loaded yet). */
  renderRow(index: number, row: HTMLElement): void;
  /** The rows from `first` to `last` (inclusive) are on screen: load what is missing. */
  onRange(first: number, last: number): void;
  onSelect(index: number): void;
  /** Enter or a click: open the row. */
  onOpen(index: number): void;
  onScroll(scrollTop: number): void;
}

/**
 * A listbox over `total` rows that keeps only the visible rows (plus a margin) as elements. Rows
 * have a fixed height, so any offset maps to a row by arithmetic and the scroll bar is true to the
 * whole list. Focus stays on the listbox; the selected row is its aria-activedescendant, which is
 * why the selected row is always scrolled into the rendered window.
 */
export class VirtualList {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private total = 0;
  private selected: number | null = null;
  private frame = 0;

  constructor(private readonly o: VirtualListOptions) {
    this.spacer = h('div', { class: 'vlist-spacer' });
    this.element = h('div', { class: 'vlist', role: 'listbox', tabindex: 0, 'aria-label': o.label }, this.spacer);
    this.element.addEventListener('scroll', () => {
      this.o.onScroll(this.element.scrollTop);
      this.schedule();
    });
    // The list's height follows the panel's (and its layout, media/inspector.css): a taller list needs more rows.
    new ResizeObserver(() => this.schedule()).observe(this.element);
    this.element.addEventListener('keydown', (e) => this.onKey(e));
    this.element.addEventListener('click', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('[data-index]');
      if (!row) return;
      const index = Number(row.dataset.index);
      this.select(index);
      this.o.onOpen(index);
    });
  }

  get length(): number {
    return this.total;
  }

  get selectedIndex(): number | null {
    return this.selected;
  }

  setTotal(total: number): void {
    this.total = total;
    this.spacer.style.height = `${total * this.o.rowHeight}px`;
    this.schedule();
  }

  setScrollTop(top: number): void {
    this.element.scrollTop = top;
    this.schedule();
  }

  select(index: number | null): void {
    this.selected = index === null ? null : Math.max(0, Math.min(index, this.total - 1));
    if (this.selected !== null) {
      this.scrollIntoView(this.selected);
      this.o.onSelect(this.selected);
    }
    this.render();
  }

  /** Draws the rows again now (data arrived, or the list became visible and has a height). */
  render(): void {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    const { rowHeight } = this.o;
    const height = this.element.clientHeight || rowHeight * 30;
    let first = Math.max(0, Math.floor(this.element.scrollTop / rowHeight) - OVERSCAN);
    let last = Math.min(this.total - 1, Math.ceil((this.element.scrollTop + height) / rowHeight) + OVERSCAN);
    if (last - first + 1 > MAX_ROWS) {
      // A very tall panel: keep the window around what is visible, the overscan gives way first.
      first = Math.max(0, Math.floor(this.element.scrollTop / rowHeight));
      last = Math.min(this.total - 1, first + MAX_ROWS - 1);
    }
    const rows = Array.from(this.spacer.children) as HTMLElement[];
    const count = Math.max(0, last - first + 1);
    for (let i = rows.length - 1; i >= count; i--) rows[i].remove();
    for (let i = 0; i < count; i++) {
      const index = first + i;
      let row = rows[i];
      if (!row) {
        row = h('div', { class: 'vlist-row', role: 'option' });
        this.spacer.append(row);
      }
      row.id = `${this.o.idPrefix}-${index}`;
      row.dataset.index = String(index);
      row.style.transform = `translateY(${index * rowHeight}px)`;
      row.setAttribute('aria-posinset', String(index + 1));
      row.setAttribute('aria-setsize', String(this.total));
      row.setAttribute('aria-selected', String(index === this.selected));
      this.o.renderRow(index, row);
    }
    if (this.selected !== null && this.selected >= first && this.selected <= last)
      this.element.setAttribute('aria-activedescendant', `${this.o.idPrefix}-${this.selected}`);
    else this.element.removeAttribute('aria-activedescendant');
    if (count > 0) this.o.onRange(first, last);
  }

  private schedule(): void {
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.render());
  }

  private scrollIntoView(index: number): void {
    const { rowHeight } = this.o;
    const top = index * rowHeight;
    const view = this.element.clientHeight;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + rowHeight > this.element.scrollTop + view) this.element.scrollTop = top + rowHeight - view;
  }

  private onKey(e: KeyboardEvent): void {
    if (this.total === 0) return;
    const page = Math.max(1, Math.floor(this.element.clientHeight / this.o.rowHeight) - 1);
    const at = this.selected;
    const moves: Record<string, () => number> = {
      ArrowDown: () => (at === null ? 0 : at + 1),
      ArrowUp: () => (at === null ? 0 : at - 1),
      PageDown: () => (at ?? 0) + page,
      PageUp: () => (at ?? 0) - page,
      Home: () => 0,
      End: () => this.total - 1,
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      this.select(move());
    } else if (e.key === 'Enter' && at !== null) {
      e.preventDefault();
      this.o.onOpen(at);
    }
  }
}
