import type { EntryRow, InspectorRequests } from '../../src/protocol/inspector';
import type { ReplyOf } from '../../src/protocol/requestMap';

export type EntriesPage = ReplyOf<InspectorRequests, 'entries'>;

export const PAGE_SIZE = 100;
/** Pages kept at once (4,000 rows): scrolling far away evicts the pages farthest from the view. */
const MAX_PAGES = 40;

/**
 * The page cache of the entry list for one filter. Each page is asked for once while it is in
 * flight; a reply to a request no longer in flight (a page of an older filter) is dropped. A page
 * whose request failed stays asked until the filter changes: asking again on every scroll would
 * repeat the same error.
 */
export class EntryPages {
  private pages = new Map<number, EntryRow[]>();
  /** Page index -> its request. */
  private inflight = new Map<number, Promise<EntriesPage>>();
  /** Unknown until the first reply for this filter. */
  total: number | null = null;

  constructor(
    private readonly request: (offset: number, limit: number) => Promise<EntriesPage>,
    private readonly onPage: (page: EntriesPage) => void,
    private readonly onFailed: (e: unknown) => void,
  ) {}

  reset(): void {
    this.pages.clear();
    this.inflight.clear();
    this.total = null;
  }

  row(index: number): EntryRow | undefined {
    return this.pages.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE];
  }

  /** Asks for every page of rows first..last that is missing or short and not already asked for. */
  ensure(first: number, last: number): void {
    for (let p = Math.floor(first / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) {
      const rows = this.pages.get(p);
      const needed = this.total === null ? PAGE_SIZE : Math.min(PAGE_SIZE, this.total - p * PAGE_SIZE);
      if (this.inflight.has(p) || (rows && rows.length >= needed)) continue;
      const asked = this.request(p * PAGE_SIZE, PAGE_SIZE);
      this.inflight.set(p, asked);
      asked.then(
        (page) => {
          if (this.inflight.get(p) !== asked) return;
          this.inflight.delete(p);
          this.accept(p, page);
          this.onPage(page);
        },
        (e: unknown) => {
          if (this.inflight.get(p) === asked) this.onFailed(e);
        },
      );
    }
    this.evict(Math.floor((first + last) / 2 / PAGE_SIZE));
  }

  private accept(p: number, { total, rows }: EntriesPage): void {
    // The tape only grows, so a reply sent before an `appended` we merged must not shrink the list.
    this.total = Math.max(this.total ?? 0, total);
    const have = this.pages.get(p);
    if (!have || have.length < rows.length) this.pages.set(p, rows);
  }

  /** New rows at the end of the list (they passed the filter); pages they continue grow in place. */
  append(rows: EntryRow[]): void {
    if (this.total === null) return;
    for (const row of rows) {
      const index = this.total++;
      const p = Math.floor(index / PAGE_SIZE);
      const page = this.pages.get(p);
      if (page && page.length === index % PAGE_SIZE) page.push(row);
      else if (!page && index % PAGE_SIZE === 0) this.pages.set(p, [row]);
    }
  }

  private evict(center: number): void {
    while (this.pages.size > MAX_PAGES) {
      let far = center;
      for (const p of this.pages.keys()) if (Math.abs(p - center) > Math.abs(far - center)) far = p;
      this.pages.delete(far);
    }
  }
}
