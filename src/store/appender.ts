import { planAppend } from '../tape/append';
import { isSessionStart, type Entry, type NewEntry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { TapeQueries } from './queries';
import type { RowWriter } from './rowWriter';
import { foldRowOfRow, paramsOf, rowTupleOf, type RowParams } from './rowTuple';
import type { AppendTransaction } from './appendTransaction';

export interface AppendResult {
  entry: Entry;
  /** True when nothing was written for it: its provenance key (or its session's start) already existed. */
  deduplicated: boolean;
}

/** What one append wrote. */
export interface Written {
  /** One per appended entry, in order. */
  results: AppendResult[];
  /** The rows inserted (none when everything was deduplicated), for the journal record. */
  rows: RowParams[];
  foldRows: FoldRow[];
}

/**
 * The write path of one append: the append rule (src/tape/append.ts), provenance-key idempotency,
 * dense entry ids, and the rows, inserted as one all-or-nothing unit of the open transaction.
 */
export class Appender {
  constructor(
    private readonly queries: TapeQueries,
    private readonly rowWriter: RowWriter,
    private readonly transaction: AppendTransaction,
  ) {}

  /** Appends entries that are already validated. Throws (having written nothing) on a SQLite error. */
  append(sessionId: string, entries: readonly NewEntry[], now: number): Written {
    const q = this.queries;
    let head = q.headEntryId(sessionId);
    // Whether the session has its start only matters when one is being appended.
    const hasSessionStart = head > 0 && (!entries.some(isSessionStart) || q.sessionStart(sessionId) !== undefined);
    const plan = planAppend(sessionId, entries, { isNew: head === 0, hasSessionStart });
    const rows: RowParams[] = [];
    const foldRows: FoldRow[] = [];
    const stored = this.transaction.run((defer) => {
      const byKey = new Map<string, Entry>();
      return plan.writes.map((e): AppendResult => {
        const key = e.provenanceKey ?? null;
        const existing = key === null ? undefined : (byKey.get(key) ?? q.byProvenance(sessionId, key));
        if (existing) return { entry: existing, deduplicated: true };
        const entry: Entry = {
          sessionId,
          entryId: head + 1,
          kind: e.kind,
          name: e.name,
          provenanceKey: key,
          payload: e.payload,
          meta: e.meta ?? {},
          createdAt: e.createdAt ?? now,
        };
        const row = rowTupleOf(entry, JSON.stringify(entry.payload), JSON.stringify(entry.meta));
        const params = paramsOf(row);
        this.rowWriter.write(params, entry.payload, defer);
        head++;
        rows.push(params);
        foldRows.push(foldRowOfRow(row));
        if (key !== null) byKey.set(key, entry);
        return { entry, deduplicated: false };
      });
    });
    q.advanceHead(sessionId, head);
    const answered = new Set<number>();
    const results = plan.answers.map((a): AppendResult => {
      if (a === 'sessionStart') return { entry: q.sessionStart(sessionId) as Entry, deduplicated: true };
      const r = stored[a.write];
      // A second session/start in one append is answered by the first: written once.
      const repeat = answered.has(a.write);
      answered.add(a.write);
      return repeat ? { entry: r.entry, deduplicated: true } : r;
    });
    return { results, rows, foldRows };
  }
}
