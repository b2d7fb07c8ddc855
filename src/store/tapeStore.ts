import * as fs from 'fs';
import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { sessionStartEntry, validateNewEntry, type Entry, type Kind, type NewEntry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { FoldSource } from '../tape/foldCache';
import type { EntrySource } from '../tape/projections/projection';
import { TapeFileError, TapeStoreFailedError } from './errors';
import { fileSize, writeFileDurably } from './fsutil';
import { Journal, journalPathOf, readJournal, type JournalRecord } from './journal';
import { LiveImage } from './liveImage';
import { acquireLock } from './lock';
import { decodeRows, encodeRows, INSERT_ROW, paramsOf, rowTupleOf, type RowParams, type RowTuple } from './rowTuple';
import { createTapeDb, readMeta, writeMeta } from './schema';
import { SearchIndex, type SearchHit, type SearchOptions } from './search';
import { readSnapshot } from './snapshot';
import { loadSqlJs } from './sqljs';

export interface OpenOptions {
  /** Read the tape without taking the lock; never writes anything. */
  readOnly?: boolean;
  /** Every append waits for its fsync (per-append `durable` can ask for it too). Default false. */
  durable?: boolean;
  /** Longest wait of a non-durable append's record for its fsync. Default 5 ms. */
  groupCommitMs?: number;
  /** Journal size that triggers an automatic checkpoint. Default 32 MiB. */
  checkpointBytes?: number;
  /** Create the tape when the file is missing (writable opens only). Default true. */
  create?: boolean;
}

export interface AppendOptions {
  /** Resolve only after the journal record is fsynced. */
  durable?: boolean;
}

export interface AppendResult {
  entry: Entry;
  /** True when the provenance key already existed: nothing was written, `entry` is the stored one. */
  deduplicated: boolean;
}

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

export interface OpenReport {
  /** Journal records replayed on open. */
  replayedRecords: number;
  /** Bytes of a torn or corrupt journal tail that were dropped. */
  droppedBytes: number;
}

const ENTRY_COLUMNS = 'session_id, entry_id, kind, name, provenance_key, payload, meta, created_at';
const FOLD_COLUMNS = 'entry_id, kind, name, message_id, tool_call_id, status, order_seq, role';
/** Fold rows kept in memory for this many sessions (least recently used go first). */
const FOLD_ROW_SESSIONS = 16;

type EntryColumns = [string, number, Kind, string, string | null, string, string, number];

const entryOf = ([sessionId, entryId, kind, name, provenanceKey, payload, meta, createdAt]: EntryColumns): Entry => ({
  sessionId, entryId, kind, name, provenanceKey, payload: JSON.parse(payload), meta: JSON.parse(meta), createdAt,
});

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

/**
 * The tape store (SPEC 2.2, 2.9): a sql.js database in memory, made durable by an append-only
 * journal of committed transactions and periodic checkpoints to the snapshot file. Append is the
 * only write. Reads are synchronous; an append is visible to reads at once and its promise resolves
 * when it is durable (journal written; fsynced when durable).
 */
export class TapeStore implements FoldSource, EntrySource {
  private statements: {
    insert: Statement;
    byId: Statement;
    byProvenance: Statement;
    head: Statement;
    begin: Statement;
    commit: Statement;
    savepoint: Statement;
    release: Statement;
    rollbackTo: Statement;
    rollback: Statement;
  };
  /** A SQLite transaction spanning the appends of the current tick (see `openBatch`). */
  private batchOpen = false;
  private readonly heads = new Map<string, number>();
  private readonly foldRowCache = new Map<string, FoldRow[]>();
  private search_: SearchIndex;
  private gen = 1;
  private checkpointing: Promise<void> | undefined;
  private failure: Error | undefined;
  private backgroundError: unknown;
  private closed = false;

  private constructor(
    private db: Database,
    private image: LiveImage,
    /** The snapshot file, or null for a tape held only in memory. */
    readonly file: string | null,
    readonly readOnly: boolean,
    private readonly journal: Journal | null,
    private readonly releaseLock: () => void,
    private readonly options: OpenOptions,
    readonly openReport: OpenReport,
  ) {
    this.statements = this.prepare();
    this.search_ = new SearchIndex(db);
  }

  /** Opens (or creates) a `.tape.sqlite` file: snapshot, then the journal replayed on top. */
  static async open(file: string, options: OpenOptions = {}): Promise<TapeStore> {
    const SQL = await loadSqlJs();
    const readOnly = options.readOnly ?? false;
    const journalFile = journalPathOf(file);
    if (readOnly || options.create === false) {
      if (!fs.existsSync(file)) throw new TapeFileError(file, 'does not exist');
    }
    const release = readOnly ? () => undefined : acquireLock(file);
    let db: Database | undefined;
    try {
      if (!fs.existsSync(file)) {
        if (fs.existsSync(journalFile)) throw new TapeFileError(file, `is missing but its journal ${journalFile} exists; restore the snapshot or move the journal away`);
        const fresh = createTapeDb(SQL);
        await writeFileDurably(file, [fresh.export()], true);
        fresh.close();
      }
      const loaded = await load(SQL, file, journalFile, readOnly);
      db = loaded.db;
      const report = { replayedRecords: loaded.replayed, droppedBytes: loaded.droppedBytes };
      const journal = readOnly ? null : await Journal.open(journalFile, loaded.tapeId, loaded.lastSeq, loaded.validEnd, { groupCommitMs: options.groupCommitMs ?? 5 });
      return new TapeStore(db, new LiveImage(loaded.image), file, readOnly, journal, release, options, report);
    } catch (e) {
      db?.close();
      release();
      throw e;
    }
  }

  /** A tape held only in memory (a loaded `.tape.jsonl`, an import being built). */
  static async inMemory(rows: readonly RowTuple[] = [], options: { readOnly?: boolean } = {}): Promise<TapeStore> {
    const db = createTapeDb(await loadSqlJs());
    insertRows(db, rows.map(paramsOf));
    return new TapeStore(db, new LiveImage(null), null, options.readOnly ?? false, null, () => undefined, {}, { replayedRecords: 0, droppedBytes: 0 });
  }

  // ---- appending ----

  append(sessionId: string, entry: NewEntry, options: AppendOptions = {}): Promise<AppendResult> {
    return this.appendMany(sessionId, [entry], options).then((r) => r[0]);
  }

  /**
   * Appends entries to one session as one transaction: all land or none. Everything is validated
   * before anything is written. A new session gets its `session/start` anchor first.
   */
  appendMany(sessionId: string, entries: readonly NewEntry[], options: AppendOptions = {}): Promise<AppendResult[]> {
    try {
      return this.commit(sessionId, entries, options.durable ?? this.options.durable ?? false);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private commit(sessionId: string, entries: readonly NewEntry[], durable: boolean): Promise<AppendResult[]> {
    if (this.closed) throw new Error(`${this.file ?? 'tape'}: the store is closed`);
    if (this.readOnly) throw new Error(`${this.file ?? 'tape'} is open read-only; appends are refused`);
    if (this.failure) throw this.failure;
    if (typeof sessionId !== 'string' || !sessionId) throw new TypeError('append: sessionId must be a non-empty string');
    const valid = entries.map((e, i) => validateNewEntry(e, entries.length > 1 ? `entry ${i}` : 'entry'));
    if (!valid.length) return Promise.resolve([]); // nothing to append, not even a session's bootstrap
    let head = this.head(sessionId);
    const bootstrap = head === 0 && !(valid[0]?.kind === 'anchor' && valid[0].name === 'session/start');
    const planned = bootstrap ? [sessionStartEntry(sessionId), ...valid] : valid;
    const now = Date.now();
    const results: AppendResult[] = [];
    const rows: RowParams[] = [];
    const newRows: FoldRow[] = [];
    const keys = new Map<string, Entry>();
    const { insert, savepoint, release, rollbackTo, rollback } = this.statements;
    // The first append of a tick owns the transaction and needs no savepoint of its own.
    const first = this.openBatch();
    if (!first) savepoint.run();
    try {
      planned.forEach((e, i) => {
        const key = e.provenanceKey ?? null;
        const existing = key === null ? undefined : (keys.get(key) ?? this.byProvenance(sessionId, key));
        let result: AppendResult;
        if (existing) {
          result = { entry: existing, deduplicated: true };
        } else {
          const entry: Entry = { sessionId, entryId: ++head, kind: e.kind, name: e.name, provenanceKey: key, payload: e.payload, meta: e.meta ?? {}, createdAt: e.createdAt ?? now };
          const row = rowTupleOf(entry, JSON.stringify(entry.payload), JSON.stringify(entry.meta));
          const params = paramsOf(row);
          insert.run(params);
          rows.push(params);
          newRows.push(foldRowOfTuple(row));
          if (key !== null) keys.set(key, entry);
          result = { entry, deduplicated: false };
        }
        if (!(bootstrap && i === 0)) results.push(result);
      });
      if (!first) release.run();
    } catch (e) {
      if (first) {
        rollback.run();
        this.batchOpen = false;
      } else {
        rollbackTo.run();
        release.run();
      }
      throw e;
    }
    if (!rows.length) return this.journal ? this.journal.barrier(durable).then(() => results) : Promise.resolve(results);
    this.heads.set(sessionId, head);
    const cached = this.foldRowCache.get(sessionId);
    if (cached) cached.push(...newRows);
    if (!this.journal) return Promise.resolve(results);
    const written = this.journal.append(encodeRows(rows), durable).catch((e: unknown) => {
      // The in-memory database is now ahead of the disk: refuse to acknowledge anything more.
      this.failure ??= new TapeStoreFailedError(this.file ?? 'tape', e);
      throw this.failure;
    });
    if (this.journal.recordBytes > (this.options.checkpointBytes ?? 32 << 20) && !this.checkpointing) {
      this.checkpoint().catch((e: unknown) => (this.backgroundError = e));
    }
    return written.then(() => results);
  }

  /**
   * Appends made in the same tick share one SQLite transaction (each append is a savepoint in it,
   * so it still lands whole or not at all): a commit writes dirty pages through sql.js's in-memory
   * file system, which costs more than the inserts. The batch commits in a microtask, before any
   * I/O callback runs, and before anything that needs a committed database (export, search).
   */
  /** Returns true when this call began the transaction. */
  private openBatch(): boolean {
    if (this.batchOpen) return false;
    this.statements.begin.run();
    this.batchOpen = true;
    queueMicrotask(() => this.closeBatch());
    return true;
  }

  private closeBatch(): void {
    if (!this.batchOpen) return;
    this.batchOpen = false;
    this.statements.commit.run();
  }

  // ---- reading ----

  /** The tape's identity: written into the snapshot and every journal header, so a journal is never replayed onto another tape. */
  get tapeId(): string {
    return readMeta(this.db).get('tape_id') ?? '';
  }

  /** Bumps whenever the database is replaced (reload), so fold caches refold. */
  generation(): number {
    return this.gen;
  }

  head(sessionId: string): number {
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

  headEntryId(sessionId: string): number {
    return this.head(sessionId);
  }

  getEntry(sessionId: string, entryId: number): Entry | undefined {
    const s = this.statements.byId;
    s.bind([sessionId, entryId]);
    const e = s.step() ? entryOf(s.get() as EntryColumns) : undefined;
    s.reset();
    return e;
  }

  /** The projection runner's input (EntrySource): the session's entries after `afterEntryId`. */
  entriesAfter(sessionId: string, afterEntryId: number): Entry[] {
    return this.entries(sessionId, { fromEntryId: afterEntryId + 1 });
  }

  /** Entries in append order, of one session (or of all when `sessionId` is null). */
  entries(sessionId: string | null, filter: EntryFilter = {}): Entry[] {
    return this.rawEntries(sessionId, filter).map((r) =>
      entryOf([r.sessionId, r.entryId, r.kind, r.name, r.provenanceKey, r.payload, r.meta, r.createdAt]),
    );
  }

  rawEntries(sessionId: string | null, filter: EntryFilter = {}): RawEntry[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (cond: string, v: SqlValue | undefined): void => {
      if (v !== undefined && v !== null) (where.push(cond), params.push(v));
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

  sessions(): SessionSummary[] {
    const r = this.db.exec(`SELECT session_id, max(entry_id), count(*), sum(kind = 'anchor'), min(created_at), max(created_at)
      FROM entries GROUP BY session_id ORDER BY min(id)`);
    return (r[0]?.values ?? []).map(([sessionId, head, count, anchors, first, last]) => ({
      sessionId: sessionId as string,
      headEntryId: head as number,
      entryCount: count as number,
      anchorCount: anchors as number,
      firstCreatedAt: first as number,
      lastCreatedAt: last as number,
    }));
  }

  /**
   * The fold's input (FoldSource): rows after `afterEntryId`, read from columns, never from payload
   * JSON. A session's rows stay cached (appends extend them), so refolds and increments do not go
   * back through sql.js, whose per-row reads cost far more than the fold itself.
   */
  foldRows(sessionId: string, afterEntryId: number): FoldRow[] {
    let rows = this.foldRowCache.get(sessionId);
    if (rows === undefined) {
      if (afterEntryId > 0) return this.readFoldRows(sessionId, afterEntryId);
      rows = this.readFoldRows(sessionId, 0);
    }
    this.foldRowCache.delete(sessionId);
    this.foldRowCache.set(sessionId, rows);
    if (this.foldRowCache.size > FOLD_ROW_SESSIONS) this.foldRowCache.delete(this.foldRowCache.keys().next().value as string);
    // Entry ids are dense from 1, so the row of entry n is at index n - 1.
    return rows.slice(Math.max(0, afterEntryId));
  }

  private readFoldRows(sessionId: string, afterEntryId: number): FoldRow[] {
    const s = this.db.prepare(`SELECT ${FOLD_COLUMNS} FROM entries WHERE session_id = ? AND entry_id > ? ORDER BY entry_id`, [sessionId, afterEntryId]);
    const rows: FoldRow[] = [];
    try {
      while (s.step()) {
        const [entryId, kind, name, messageId, toolCallId, status, orderSeq, role] = s.get();
        rows.push({ entryId, kind, name, messageId, toolCallId, status, orderSeq, role } as FoldRow);
      }
    } finally {
      s.free();
    }
    return rows;
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    this.closeBatch();
    return this.search_.search(query, options);
  }

  // ---- persistence ----

  /** A consistent image of the whole database, the caller's to keep. */
  snapshotBytes(): Uint8Array {
    this.closeBatch();
    return this.db.export();
  }

  /**
   * Writes the database over the snapshot and rotates the journal. Only taking the image blocks
   * (LiveImage, else `db.export()`); the bytes are written asynchronously while appends continue
   * into the journal, and the rotation keeps exactly the records the snapshot does not contain (by
   * sequence number). Checkpoints never overlap, so the image is not reused while being written.
   */
  checkpoint(): Promise<void> {
    const journal = this.journal;
    const file = this.file;
    if (!journal || !file) return Promise.resolve();
    this.checkpointing ??= (async () => {
      const end = journal.end;
      this.closeBatch();
      writeMeta(this.db, 'last_seq', journal.seq);
      const bytes = this.image.capture(this.db) ?? this.db.export();
      await writeFileDurably(file, [bytes], false);
      await journal.rotate(end);
    })().finally(() => (this.checkpointing = undefined));
    return this.checkpointing;
  }

  /**
   * Re-reads a read-only tape from disk (another process writes it) and bumps the generation.
   */
  async reload(): Promise<void> {
    if (!this.readOnly || !this.file) throw new Error('reload: only read-only file tapes reload; a writable store is the source of truth');
    const next = await TapeStore.open(this.file, { readOnly: true });
    this.db.close();
    this.db = next.db;
    this.image = next.image;
    this.statements = this.prepare();
    this.search_ = new SearchIndex(this.db);
    this.heads.clear();
    this.foldRowCache.clear();
    this.gen++;
  }

  /** Waits for pending appends, checkpoints (writable file tapes), releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closeBatch();
    try {
      if (this.journal) {
        await this.checkpointing?.catch(() => undefined);
        if (!this.failure) {
          await this.journal.barrier(true);
          if (this.journal.recordBytes > 0) await this.checkpoint();
        }
        await this.journal.close();
      }
    } finally {
      this.db.close();
      this.releaseLock();
    }
    if (this.backgroundError) throw this.backgroundError;
  }

  private prepare(): TapeStore['statements'] {
    return {
      insert: this.db.prepare(INSERT_ROW),
      byId: this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND entry_id = ?`),
      byProvenance: this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND provenance_key = ?`),
      head: this.db.prepare('SELECT max(entry_id) FROM entries WHERE session_id = ?'),
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      savepoint: this.db.prepare('SAVEPOINT append'),
      release: this.db.prepare('RELEASE append'),
      rollbackTo: this.db.prepare('ROLLBACK TO append'),
      rollback: this.db.prepare('ROLLBACK'),
    };
  }

  private byProvenance(sessionId: string, key: string): Entry | undefined {
    const s = this.statements.byProvenance;
    s.bind([sessionId, key]);
    const e = s.step() ? entryOf(s.get() as EntryColumns) : undefined;
    s.reset();
    return e;
  }
}

/**
 * Room to leave after the snapshot in memory (see openSnapshot): what the journal will add on
 * replay (rows take about their JSON size again in SQLite, indexes included) plus as much again as
 * the tape holds, at least 32 MiB, for the appends to come. It is calloc'd: pages cost memory only
 * once SQLite writes them, while each regrowth it spares would copy the whole database.
 */
function roomFor(file: string, journalFile: string): number {
  return Math.ceil(fileSize(journalFile) * 1.5 + Math.max(32 << 20, fileSize(file)));
}

function foldRowOfTuple(r: RowTuple): FoldRow {
  return { entryId: r[1], kind: r[2], name: r[3], messageId: r[6], toolCallId: r[7], status: r[8], orderSeq: r[9], role: r[10] };
}

/** Inserts rows in one transaction with one prepared statement (journal replay, imports). */
function insertRows(db: Database, rows: readonly RowParams[]): void {
  if (!rows.length) return;
  const insert = db.prepare(INSERT_ROW);
  db.run('BEGIN');
  try {
    for (const r of rows) insert.run(r);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  } finally {
    insert.free();
  }
}

interface Loaded {
  db: Database;
  image: Buffer;
  tapeId: string;
  lastSeq: number;
  replayed: number;
  validEnd: number;
  droppedBytes: number;
}

/**
 * The snapshot with the journal replayed onto it. A live writer's checkpoint can replace both
 * between the two reads, leaving an old snapshot and a new journal; the sequence numbers show
 * the gap, and a reader (the writer holds the lock) reads both again.
 */
async function load(SQL: SqlJsStatic, file: string, journalFile: string, readOnly: boolean): Promise<Loaded> {
  for (let attempt = 1; ; attempt++) {
    const { db, image } = await readSnapshot(SQL, file, roomFor(file, journalFile));
    try {
      const meta = readMeta(db);
      const tapeId = meta.get('tape_id') ?? '';
      const snapshotSeq = Number(meta.get('last_seq') ?? 0);
      const contents = readJournal(journalFile, tapeId);
      const records = contents.records.filter((r) => r.seq > snapshotSeq);
      if (records.length && records[0].seq !== snapshotSeq + 1) {
        if (readOnly && attempt < LOAD_ATTEMPTS) {
          db.close();
          await new Promise((r) => setTimeout(r, 10 * attempt));
          continue;
        }
        throw new TapeFileError(journalFile, `does not continue its snapshot: the snapshot ends at record ${snapshotSeq}, the journal goes on from record ${records[0].seq}`);
      }
      replay(db, records, journalFile);
      const lastSeq = records.length ? records[records.length - 1].seq : snapshotSeq;
      return { db, image, tapeId, lastSeq, replayed: records.length, validEnd: contents.validEnd, droppedBytes: contents.droppedBytes };
    } catch (e) {
      db.close();
      throw e;
    }
  }
}

const LOAD_ATTEMPTS = 5;

function replay(db: Database, records: readonly JournalRecord[], journalFile: string): void {
  try {
    insertRows(db, records.flatMap((r) => decodeRows(r.body)));
  } catch (e) {
    throw new TapeFileError(journalFile, `cannot be replayed onto its snapshot: ${e instanceof Error ? e.message : String(e)}`);
  }
}
