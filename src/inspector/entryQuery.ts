import type { SessionReads } from './sessionReads';
import type { Entry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { EntryListFilter, EntryRow } from '../protocol/inspector';
import { entryRowOf } from './entryRows';

/**
 * A text filter lists at most this many hits. The core search loads the payload of every hit it
 * returns (for its snippet), so an unbounded list would read most of a big session for a common
 * word; past the first thousand, best first, a person refines the query rather than scrolls.
 */
const TEXT_MATCH_LIMIT = 1000;

export interface EntryPage {
  total: number;
  rows: EntryRow[];
}

/** The entry ids a filter matches, in the order the rows are listed, and what they were computed from. */
interface Matches {
  generation: number;
  head: number;
  ids: number[];
}

const isEmpty = (f: EntryListFilter): boolean => !f.kinds?.length && !f.name && !f.text?.trim();

const rowMatcher = (f: EntryListFilter): ((r: FoldRow) => boolean) => {
  const kinds = f.kinds?.length ? new Set<string>(f.kinds) : null;
  const prefix = f.name ?? '';
  return (r) => (kinds === null || kinds.has(r.kind)) && r.name.startsWith(prefix);
};

/**
 * Pages of a session's entry rows under a filter. The matching ids are kept per (session, filter)
 * and stay valid for the store generation they came from: scrolling costs the page, and a grown
 * session costs only its new rows (a text query is ranked as a whole, so it runs again). Kind and
 * name are matched on the fold rows the store keeps in memory; payloads are read for the page only.
 * With no filter the ids are simply 1..head and nothing is cached.
 */
export class EntryQuery {
  private readonly cache = new Map<string, Matches>();

  constructor(
    private readonly store: SessionReads,
    private readonly maxCached = 8,
  ) {}

  page(sessionId: string, filter: EntryListFilter, offset: number, limit: number): EntryPage {
    const from = Math.max(0, Math.floor(offset));
    const count = Math.max(0, Math.floor(limit));
    if (isEmpty(filter)) {
      const total = this.store.headEntryId(sessionId);
      const rows = count === 0 || from >= total ? [] : this.store.entries(sessionId, { fromEntryId: from + 1, toEntryId: Math.min(total, from + count) });
      return { total, rows: rows.map(entryRowOf) };
    }
    const ids = this.matches(sessionId, filter);
    const pageIds = ids.slice(from, from + count);
    return { total: ids.length, rows: this.load(sessionId, pageIds).map(entryRowOf) };
  }

  private matches(sessionId: string, filter: EntryListFilter): number[] {
    const key = JSON.stringify([sessionId, filter.kinds ?? [], filter.name ?? '', filter.text?.trim() ?? '']);
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    let m = this.cache.get(key);
    const text = filter.text?.trim();
    if (m !== undefined && (m.generation !== generation || m.head > head || (text && m.head !== head))) m = undefined;
    if (m === undefined) {
      m = { generation, head, ids: text ? this.search(sessionId, filter, text) : this.scan(sessionId, filter, 0) };
    } else if (m.head < head) {
      m.ids.push(...this.scan(sessionId, filter, m.head));
      m.head = head;
    }
    this.cache.delete(key);
    this.cache.set(key, m);
    if (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value as string);
    return m.ids;
  }

  private scan(sessionId: string, filter: EntryListFilter, afterEntryId: number): number[] {
    const match = rowMatcher(filter);
    const ids: number[] = [];
    for (const r of this.store.foldRows(sessionId, afterEntryId)) if (match(r)) ids.push(r.entryId);
    return ids;
  }

  private search(sessionId: string, filter: EntryListFilter, text: string): number[] {
    const prefix = filter.name ?? '';
    return this.store
      .search(text, { sessionId, kinds: filter.kinds?.length ? filter.kinds : undefined, limit: TEXT_MATCH_LIMIT })
      .filter((h) => h.name.startsWith(prefix))
      .map((h) => h.entryId);
  }

  /** The page's entries in the given order: one range read when they are consecutive, else one lookup each. */
  private load(sessionId: string, ids: readonly number[]): Entry[] {
    if (ids.length === 0) return [];
    const first = ids[0];
    if (ids.every((id, i) => id === first + i)) return this.store.entries(sessionId, { fromEntryId: first, toEntryId: first + ids.length - 1 });
    return ids.map((id) => this.store.requireEntry(sessionId, id));
  }
}
