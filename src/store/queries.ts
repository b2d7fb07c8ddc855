import { SESSION_START } from '../tape/entryNames';
import type { Database, SqlValue, Statement } from 'sql.js';
import { type Entry, type JsonObject, type Kind } from '../tape/entry';
import { TapeFileError } from './errors';
import type { FoldRow } from '../tape/fold';
import { INTERRUPTED_KEY_PREFIX } from '../tape/interruptedKey';

export interface EntryFilter {
  kind?: Kind;
  name?: string;
  /** Inclusive entry id bounds. */
  fromEntryId?: number;
  toEntryId?: number;
  /** Inclusive `createdAt` bounds (ms since epoch). */
  fromTime?: number;
  toTime?: number;
  limit?: number;
}

export interface SessionSummary {
  sessionId: string;
  headEntryId: number;
  entryCount: number;
  anchorCount: number;
  firstCreatedAt: number;
  lastCreatedAt: number;
}

/** One row of `entries` with payload and meta as stored JSON text (for lossless export). */
export interface RawEntry {
  sessionId: string;
  entryId: number;
  kind: Kind;
  name: string;
  provenanceKey: string | null;
  payload: string;
  meta: string;
  createdAt: number;
}

const ENTRY_COLUMNS = 'session_id, entry_id, kind, name, provenance_key, payload, meta, created_at';
// The last column is FoldRow.interrupted, 0 or 1 (SQLite keeps the key out of the row).
const FOLD_COLUMNS = `entry_id, kind, name, message_id, tool_call_id, status, order_seq, role,
  coalesce(kind = 'tool_result' AND substr(provenance_key, 1, ${INTERRUPTED_KEY_PREFIX.length}) = '${INTERRUPTED_KEY_PREFIX}', 0)`;

/**
 * A page of rows in append order and where the next one starts: the last row's `id` (a whole tape)
 * or entry id (one session), 0 when the page is empty.
 */
export interface RawEntryPage {
  rows: RawEntry[];
  last: number;
}

const MESSAGE_IDS_A_STATEMENT = 500;

type EntryColumns = [string, number, Kind, string, string | null, string, string, number];

/**
 * A row's payload or meta as the object it must be. A database someone else wrote may hold
 * anything in those columns: that is bad input naming the file and the entry, not a SyntaxError.
 */
export function objectOf(text: string, column: string, sessionId: string, entryId: number, file: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // refused below, with the entry named
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject;
  throw new TapeFileError(file, `entry ${entryId} of session ${JSON.stringify(sessionId)}: its ${column} is not a JSON object`);
}

const entryOf = ([sessionId, entryId, kind, name, provenanceKey, payload, meta, createdAt]: EntryColumns, file: string): Entry => ({
  sessionId,
  entryId,
  kind,
  name,
  provenanceKey,
  payload: objectOf(payload, 'payload', sessionId, entryId, file),
  meta: objectOf(meta, 'meta', sessionId, entryId, file),
  createdAt,
});

/**
 * The reads of a tape database. Heads are cached per session because every append needs its
 * session's head; the write path advances them (`advanceHead`) and only a session's deletion drops one.
 */
export class TapeQueries {
  private readonly heads = new Map<string, number>();
  private readonly statements: Record<'byId' | 'byProvenance' | 'head' | 'sessionStart', Statement>;

  constructor(
    private readonly db: Database,
    private readonly file: string,
  ) {
    this.statements = {
      byId: db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND entry_id = ?`),
      byProvenance: db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND provenance_key = ?`),
      head: db.prepare('SELECT max(entry_id) FROM entries WHERE session_id = ?'),
      sessionStart: db.prepare(
        `SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND kind = 'anchor' AND name = '${SESSION_START}' ORDER BY entry_id LIMIT 1`,
      ),
    };
  }

  headEntryId(sessionId: string): number {
    let h = this.heads.get(sessionId);
    if (h === undefined) {
      const s = this.statements.head;
      s.bind([sessionId]);
      h = s.step() ? ((s.get()[0] as number | null) ?? 0) : 0;
      s.reset();
      this.heads.set(sessionId, h);
    }
    return h;
  }

  advanceHead(sessionId: string, head: number): void {
    this.heads.set(sessionId, head);
  }

  /** A deleted session's head is gone with it. */
  forget(sessionId: string): void {
    this.heads.delete(sessionId);
  }

  getEntry(sessionId: string, entryId: number): Entry | undefined {
    return this.one(this.statements.byId, [sessionId, entryId]);
  }

  byProvenance(sessionId: string, key: string): Entry | undefined {
    return this.one(this.statements.byProvenance, [sessionId, key]);
  }

  /** The session's first session/start anchor. */
  sessionStart(sessionId: string): Entry | undefined {
    return this.one(this.statements.sessionStart, [sessionId]);
  }

  /** Entries in append order, of one session (or of all when `sessionId` is null). */
  entries(sessionId: string | null, filter: EntryFilter = {}): Entry[] {
    return this.rawEntries(sessionId, filter).map((r) =>
      entryOf([r.sessionId, r.entryId, r.kind, r.name, r.provenanceKey, r.payload, r.meta, r.createdAt], this.file),
    );
  }

  rawEntries(sessionId: string | null, filter: EntryFilter = {}): RawEntry[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (cond: string, v: SqlValue | undefined): void => {
      if (v === undefined || v === null) return;
      where.push(cond);
      params.push(v);
    };
    add('session_id = ?', sessionId);
    add('kind = ?', filter.kind);
    add('name = ?', filter.name);
    add('entry_id >= ?', filter.fromEntryId);
    add('entry_id <= ?', filter.toEntryId);
    add('created_at >= ?', filter.fromTime);
    add('created_at <= ?', filter.toTime);
    const order = sessionId === null ? 'id' : 'entry_id';
    const limit = filter.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
    const sql = `SELECT ${ENTRY_COLUMNS} FROM entries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order}${limit}`;
    const out: RawEntry[] = [];
    const s = this.db.prepare(sql, params);
    try {
      while (s.step()) {
        const [sid, entryId, kind, name, provenanceKey, payload, meta, createdAt] = s.get() as EntryColumns;
        out.push({ sessionId: sid, entryId, kind, name, provenanceKey, payload, meta, createdAt });
      }
    } finally {
      s.free();
    }
    return out;
  }

  /**
   * The rows after `after` and up to `through` in append order (of one session, by entry id; of the
   * whole tape, by id), ending with the first row that brings the page's payload and meta to
   * `maxChars`: a read of any size holds one page at a time, and the statement is done before the
   * caller awaits anything (an append in between cannot disturb it).
   */
  rawEntriesPage(sessionId: string | null, after: number, through: number, maxChars: number): RawEntryPage {
    const cursor = sessionId === null ? 'id' : 'entry_id';
    const sql = `SELECT ${cursor}, ${ENTRY_COLUMNS} FROM entries WHERE ${sessionId === null ? '' : 'session_id = ? AND '}${cursor} > ? AND ${cursor} <= ? ORDER BY ${cursor}`;
    const page: RawEntryPage = { rows: [], last: 0 };
    const s = this.db.prepare(sql, sessionId === null ? [after, through] : [sessionId, after, through]);
    try {
      for (let chars = 0; chars < maxChars && s.step();) {
        const [at, sid, entryId, kind, name, provenanceKey, payload, meta, createdAt] = s.get() as [number, ...EntryColumns];
        page.rows.push({ sessionId: sid, entryId, kind, name, provenanceKey, payload, meta, createdAt });
        page.last = at;
        chars += payload.length + meta.length;
      }
    } finally {
      s.free();
    }
    return page;
  }

  /** The id of the tape's last row, 0 when it has none. */
  lastRowId(): number {
    return (this.db.exec('SELECT max(id) FROM entries')[0]?.values[0][0] as number | null) ?? 0;
  }

  sessions(): SessionSummary[] {
    // The summaries the write path keeps (schema.ts SESSIONS_TABLE): a tape has far fewer sessions than entries.
    const r = this.db.exec(`SELECT session_id, head_entry_id, entry_count, anchor_count, first_created_at, last_created_at
      FROM sessions ORDER BY first_id`);
    return (r[0]?.values ?? []).map(([sessionId, head, count, anchors, first, last]) => ({
      sessionId: sessionId as string,
      headEntryId: head as number,
      entryCount: count as number,
      anchorCount: anchors as number,
      firstCreatedAt: first as number,
      lastCreatedAt: last as number,
    }));
  }

  /** Fold rows after `afterEntryId`, read from columns, never from payload JSON. */
  foldRows(sessionId: string, afterEntryId: number): FoldRow[] {
    return this.foldRowsWhere('entry_id > ?', [sessionId, afterEntryId]);
  }

  /** The fold rows of these messages (their versions, tool calls and results), in entry id order. */
  messageRows(sessionId: string, messageIds: readonly string[]): FoldRow[] {
    const rows: FoldRow[] = [];
    // In slices: SQLite takes at most 999 parameters a statement in older builds.
    for (let i = 0; i < messageIds.length; i += MESSAGE_IDS_A_STATEMENT) {
      const ids = messageIds.slice(i, i + MESSAGE_IDS_A_STATEMENT);
      rows.push(...this.foldRowsWhere(`message_id IN (${ids.map(() => '?').join(',')})`, [sessionId, ...ids]));
    }
    return messageIds.length > MESSAGE_IDS_A_STATEMENT ? rows.sort((a, b) => a.entryId - b.entryId) : rows;
  }

  private foldRowsWhere(condition: string, params: SqlValue[]): FoldRow[] {
    const s = this.db.prepare(`SELECT ${FOLD_COLUMNS} FROM entries WHERE session_id = ? AND ${condition} ORDER BY entry_id`, params);
    const rows: FoldRow[] = [];
    try {
      while (s.step()) {
        const [entryId, kind, name, messageId, toolCallId, status, orderSeq, role, interrupted] = s.get();
        rows.push({ entryId, kind, name, messageId, toolCallId, status, orderSeq, role, interrupted: interrupted === 1 } as FoldRow);
      }
    } finally {
      s.free();
    }
    return rows;
  }

  /** Frees the prepared statements (the database is being closed or replaced). */
  free(): void {
    for (const s of Object.values(this.statements)) s.free();
  }

  private one(s: Statement, params: SqlValue[]): Entry | undefined {
    s.bind(params);
    const e = s.step() ? entryOf(s.get() as EntryColumns, this.file) : undefined;
    s.reset();
    return e;
  }
}
