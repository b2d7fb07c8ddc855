import { planAppend } from '../tape/append';
import { isSessionStart, TapeValidationError, type Entry, type NewEntry } from '../tape/entry';
import { entryTooLarge, MAX_ENTRY_JSON_BYTES } from '../tape/entrySize';
import type { FoldRow } from '../tape/fold';
import type { TapeQueries } from './queries';
import type { RowWriter } from './rowWriter';
import { encodeRows, foldRowOfRow, jsonBytesOf, paramsOf, rowTupleOf, type RowParams } from './rowTuple';
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
  /** The journal record's body: the rows inserted (null when everything was deduplicated). */
  record: Buffer | null;
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
    /** Throws when the database could pass its size limit with this many more bytes of rows (tapeSize.ts). */
    private readonly checkRoom: (incomingBytes: number) => void,
  ) {}

  /**
   * Appends entries that are already validated. Throws, having written nothing, on a SQLite error,
   * on an entry whose JSON text is over MAX_ENTRY_JSON_BYTES (validation bounds it only from
   * below), when the tape could pass its size limit with it, or when its journal record cannot be
   * made: the record is made inside the unit, so an append either has its rows and its record or
   * neither.
   */
  append(sessionId: string, entries: readonly NewEntry[], now: number): Written {
    const q = this.queries;
    let head = q.headEntryId(sessionId);
    // Whether the session has its start only matters when one is being appended.
    const hasSessionStart = head > 0 && (!entries.some(isSessionStart) || q.sessionStart(sessionId) !== undefined);
    const plan = planAppend(sessionId, entries, { isNew: head === 0, hasSessionStart });
    const rows: RowParams[] = [];
    const foldRows: FoldRow[] = [];
    let record: Buffer | null = null;
    const stored = this.transaction.run((defer) => {
      const byKey = new Map<string, Entry>();
      const written = plan.writes.map((e): AppendResult => {
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
        const bytes = jsonBytesOf(params);
        if (bytes > MAX_ENTRY_JSON_BYTES) throw new TapeValidationError(`entry ${e.kind} ${e.name}: ${entryTooLarge(bytes)}`);
        this.rowWriter.write(params, entry.payload, defer);
        head++;
        rows.push(params);
        foldRows.push(foldRowOfRow(row));
        if (key !== null) byKey.set(key, entry);
        return { entry, deduplicated: false };
      });
      if (rows.length) {
        record = encodeRows(rows);
        this.checkRoom(record.length);
      }
      return written;
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
    return { results, record, foldRows };
  }
}
