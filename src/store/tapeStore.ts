import { randomBytes } from 'crypto';
import * as fs from 'fs';
import type { Database } from 'sql.js';
import { validateNewEntry, type Entry, type NewEntry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { FoldSource } from '../tape/foldCache';
import type { EntrySource } from '../tape/projections/projection';
import type { MatchFilter, SearchMatch } from '../tape/search/entrySearch';
import type { RankedMatch, RankedMatches } from '../tape/search/rankedMatches';
import type { SearchQuery } from '../tape/search/searchQuery';
import type { AppendResult } from './appender';
import { Connection } from './connection';
import { AppendEvents, growthEvents, type AppendListener, type Disposable } from './appendEvents';
import { interruptedCallRepairs, markCallsChecked } from './crashRepair';
import { Durability, type CheckpointImage } from './durability';
import { TapeFileError } from './errors';
import { removeTempFiles, writeFileDurably } from './fsutil';
import { Follower } from './follower';
import { Journal, journalPathOf, type JournalRecord } from './journal';
import type { TailStart } from './journalTail';
import type { PagedFile } from './pagedFile';
import { ParallelIndexer } from './parallelIndex';
import { acquireLock } from './lock';
import { FoldRowCache } from './foldRowCache';
import type { EntryFilter, RawEntry, SessionSummary } from './queries';
import { recover, tailStartOf, type Recovered } from './recovery';
import { deleteSessionRows } from './sessionDelete';
import { decodeRows, foldRowOfRow, paramsOf, type RowTuple } from './rowTuple';
import { insertRows } from './rowWriter';
import { createTapeDb, readMeta, writeMeta } from './schema';
import { searchHits, type SearchHit, type SearchOptions } from './search';
import { loadSqlJs } from './sqljs';
import { checkRoomFor, nearlyFullWarning, TAPE_MAX_BYTES } from './tapeSize';

export type { AppendResult } from './appender';
export type { AppendEvent, AppendListener, Disposable } from './appendEvents';
export type { EntryFilter, RawEntry, SessionSummary } from './queries';

export interface OpenOptions {
  /** Read the tape without taking the lock; never writes anything. */
  readOnly?: boolean;
  /** Every append waits for its fsync (per-append `durable` can ask for it too). Default false. */
  durable?: boolean;
  /** Longest wait of a non-durable append's record for its fsync. Default 5 ms. */
  groupCommitMs?: number;
  /** Journal size that triggers an automatic checkpoint. Default 32 MiB, more on a big tape (see DurabilityOptions). */
  checkpointBytes?: number;
  /** Create the tape when the file is missing (writable opens only). Default true. */
  create?: boolean;
  /**
   * Full-text indexing on a worker thread (parallelIndex.ts), for bulk writers such as the CLI's
   * `append`: appends get faster, a search or export after appends waits for the worker to catch
   * up. Writable opens only. Default false.
   */
  indexInWorker?: boolean;
  /**
   * Told once, with what to do, when a writable file tape is near its size limit (tapeSize.ts): at
   * the open, or at the append that takes it there. The CLI prints it, VS Code shows a warning.
   */
  onNearlyFull?: (warning: string) => void;
  /** A smaller size limit than TAPE_MAX_BYTES, for reads and writes alike (tests; a tool keeping tapes small). */
  maxBytes?: number;
}

function sizeLimitOf(options: OpenOptions): number {
  const limit = options.maxBytes ?? TAPE_MAX_BYTES;
  if (!(limit > 0 && limit <= TAPE_MAX_BYTES)) throw new RangeError(`maxBytes must be above 0 and at most ${TAPE_MAX_BYTES}`);
  return limit;
}

export interface AppendOptions {
  /** Resolve only after the journal record is fsynced. */
  durable?: boolean;
}

export interface OpenReport {
  /** Journal records replayed on open. */
  replayedRecords: number;
  /** Bytes of a torn journal tail that were not replayed (a writable open cuts them off). */
  droppedBytes: number;
  /** The schema the file had when it was older than this version's, migrated on open. */
  migratedFrom: number | null;
  /** Temp files of an interrupted checkpoint that a writable open removed. */
  removedTempFiles: string[];
  /** Tool calls left without a result (crash, cancel) that a writable open closed with an error result. */
  repairedToolCalls: number;
}

/**
 * The tape store (SPEC 2.2, 2.9): a sql.js database in memory, made durable by an append-only
 * journal of committed transactions and periodic checkpoints to the snapshot file. Append is the
 * only write. Reads are synchronous; an append is visible to reads at once and its promise
 * resolves when it is durable (journal written; fsynced when durable). This class only wires the
 * parts together: recovery.ts opens, appender.ts writes, durability.ts journals and checkpoints,
 * queries.ts reads, foldRowCache.ts feeds folds, search.ts searches.
 */
export class TapeStore implements FoldSource, EntrySource {
  private readonly foldRowCache = new FoldRowCache((s, after) => this.c.queries.foldRows(s, after));
  private readonly events = new AppendEvents();
  private readonly durability: Durability | null;
  private gen = 1;
  private closed = false;
  private following: Follower | undefined;
  private toldNearlyFull = false;
  private readonly maxBytes: number;

  private conn: Connection;

  /** The open connection; a closed store's sql.js database is freed, and using it gave "out of memory". */
  private get c(): Connection {
    if (this.closed) throw new Error(`${this.file ?? 'the in-memory tape'} is closed; open it again to read or append`);
    return this.conn;
  }

  private constructor(
    db: Database,
    /** The database's file when it is a file tape's snapshot read on demand; null in memory. */
    private paged: PagedFile | null,
    /** The snapshot file, or null for a tape held only in memory. */
    readonly file: string | null,
    readonly readOnly: boolean,
    journal: Journal | null,
    private readonly releaseLock: () => void,
    private readonly options: OpenOptions,
    readonly openReport: OpenReport,
    /** Where the database ends in the journal (what following a writer continues from). */
    private loadedAt: TailStart,
    indexer?: ParallelIndexer,
  ) {
    this.maxBytes = sizeLimitOf(options);
    this.conn = this.connect(db, indexer);
    this.durability =
      journal && file ? new Durability(file, journal, (lastSeq) => this.captureImage(lastSeq), { checkpointBytes: options.checkpointBytes }) : null;
  }

  /** Opens (or creates) a `.tape.sqlite` file: snapshot, then the journal replayed on top. */
  static async open(file: string, options: OpenOptions = {}): Promise<TapeStore> {
    // Started first: the worker loads SQLite while this thread opens the tape. The store owns it
    // once made; until then a failed open stops it here.
    const indexer = options.indexInWorker && !options.readOnly ? new ParallelIndexer() : undefined;
    try {
      return await TapeStore.openFile(file, options, indexer);
    } catch (e) {
      indexer?.dispose();
      throw e;
    }
  }

  private static async openFile(file: string, options: OpenOptions, indexer: ParallelIndexer | undefined): Promise<TapeStore> {
    const SQL = await loadSqlJs();
    const readOnly = options.readOnly ?? false;
    const journalFile = journalPathOf(file);
    if ((readOnly || options.create === false) && !fs.existsSync(file)) throw new TapeFileError(file, 'does not exist');
    const release = readOnly ? () => undefined : acquireLock(file);
    let db: Database | undefined;
    let r: Recovered | undefined;
    let store: TapeStore;
    try {
      const removedTempFiles = readOnly ? [] : removeTempFiles(file);
      if (!fs.existsSync(file)) {
        if (fs.existsSync(journalFile))
          throw new TapeFileError(file, `is missing but its journal ${journalFile} exists; restore the snapshot or move the journal away`);
        const fresh = createTapeDb(SQL);
        await writeFileDurably(file, [fresh.export()], true);
        fresh.close();
      }
      r = await recover(SQL, file, journalFile, readOnly, sizeLimitOf(options));
      db = r.db;
      const report: OpenReport = {
        replayedRecords: r.replayed,
        droppedBytes: r.droppedBytes,
        migratedFrom: r.migratedFrom,
        removedTempFiles,
        repairedToolCalls: 0,
      };
      const journal = readOnly
        ? null
        : await Journal.open(journalFile, r.tapeId, r.lastSeq, r.validEnd, r.droppedBytes, r.layout, { groupCommitMs: options.groupCommitMs ?? 5 });
      store = new TapeStore(db, r.file, file, readOnly, journal, release, options, report, tailStartOf(r), indexer);
    } catch (e) {
      db?.close();
      r?.file.close();
      release();
      throw e;
    }
    if (!readOnly) {
      store.tellIfNearlyFull();
      try {
        store.openReport.repairedToolCalls = await store.repairInterruptedCalls();
      } catch (e) {
        await store.close().catch(() => undefined);
        throw e;
      }
    }
    return store;
  }

  /**
   * A tape held only in memory (a loaded `.tape.jsonl`, an import being built), from its rows or
   * from batches of them, each inserted and dropped before the next is read (jsonlFile.ts).
   */
  static async inMemory(rows: readonly RowTuple[] | AsyncIterable<readonly RowTuple[]> = [], options: { readOnly?: boolean } = {}): Promise<TapeStore> {
    const db = createTapeDb(await loadSqlJs());
    try {
      for await (const batch of 'length' in rows ? [rows] : rows) insertRows(db, batch.map(paramsOf));
    } catch (e) {
      db.close();
      throw e;
    }
    const report: OpenReport = { replayedRecords: 0, droppedBytes: 0, migratedFrom: null, removedTempFiles: [], repairedToolCalls: 0 };
    return new TapeStore(db, null, null, options.readOnly ?? false, null, () => undefined, {}, report, { ino: null, offset: 0, lastSeq: 0 });
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
      if (this.closed) throw new Error(`${this.file ?? 'tape'}: the store is closed`);
      if (this.readOnly) throw new Error(`${this.file ?? 'tape'} is open read-only; appends are refused`);
      this.durability?.assertHealthy();
      if (typeof sessionId !== 'string' || !sessionId) throw new TypeError('append: sessionId must be a non-empty string');
      const valid = entries.map((e, i) => validateNewEntry(e, entries.length > 1 ? `entry ${i}` : 'entry'));
      if (!valid.length) return Promise.resolve([]); // nothing to append, not even a session's bootstrap
      const durable = options.durable ?? this.options.durable ?? false;
      const { results, record, foldRows } = this.c.appender.append(sessionId, valid, Date.now());
      if (!record) return (this.durability?.barrier(durable) ?? Promise.resolve()).then(() => results);
      this.foldRowCache.extend(sessionId, foldRows);
      this.tellIfNearlyFull();
      if (this.events.hasListeners) {
        const event = { sessionId, firstEntryId: foldRows[0].entryId, lastEntryId: foldRows[foldRows.length - 1].entryId };
        this.c.transaction.afterCommit(() => this.events.fire(event));
      }
      if (!this.durability) return Promise.resolve(results);
      return this.durability.persist(record, durable).then(() => results);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Calls `listener` once per append transaction that wrote something (session id, first and last
   * entry id), when the database commits it: within a few milliseconds (see AppendTransaction), or
   * at once when something needs a committed database. Durability is what the append's promise
   * tells. Events come in append order.
   */
  onDidAppend(listener: AppendListener): Disposable {
    return this.events.listen(listener);
  }

  /** Commits the appends still gathering in their transaction, so their onDidAppend events have fired when it returns. */
  commitAppends(): void {
    this.c.transaction.commit();
  }

  // ---- reading ----

  /** The tape's identity: written into the snapshot and every journal header, so a journal is never replayed onto another tape. */
  get tapeId(): string {
    return readMeta(this.c.db).get('tape_id') ?? '';
  }

  /** Bumps whenever the database is replaced (reload), so fold caches refold. */
  generation(): number {
    return this.gen;
  }

  headEntryId(sessionId: string): number {
    return this.c.queries.headEntryId(sessionId);
  }

  getEntry(sessionId: string, entryId: number): Entry | undefined {
    return this.c.queries.getEntry(sessionId, entryId);
  }

  /** The entry, which the caller knows exists (an id from a fold or a view); throws when it does not. */
  requireEntry(sessionId: string, entryId: number): Entry {
    const entry = this.c.queries.getEntry(sessionId, entryId);
    if (entry === undefined) throw new Error(`entry ${sessionId}#${entryId} is missing`);
    return entry;
  }

  /** The projection runner's input (EntrySource): the session's entries after `afterEntryId`. */
  entriesAfter(sessionId: string, afterEntryId: number): Entry[] {
    return this.entries(sessionId, { fromEntryId: afterEntryId + 1 });
  }

  /** Entries in append order, of one session (or of all when `sessionId` is null). */
  entries(sessionId: string | null, filter: EntryFilter = {}): Entry[] {
    return this.c.queries.entries(sessionId, filter);
  }

  rawEntries(sessionId: string | null, filter: EntryFilter = {}): RawEntry[] {
    return this.c.queries.rawEntries(sessionId, filter);
  }

  /**
   * The rows of one session, or of the whole tape, as they are when the read starts, in append
   * order, a page of about `maxChars` of payload and meta at a time (TapeQueries.rawEntriesPage):
   * for reads of any size, such as an export. Each page is read when the previous one is done with,
   * so appends may come in between; they are left out. A session deleted meanwhile is an error, not
   * a shorter read.
   */
  *rawEntryPages(sessionId: string | null, maxChars: number): Generator<RawEntry[]> {
    const through = sessionId === null ? this.c.queries.lastRowId() : this.headEntryId(sessionId);
    let read = 0;
    for (let after = 0; ;) {
      const page = this.c.queries.rawEntriesPage(sessionId, after, through, maxChars);
      if (!page.rows.length) break;
      read += page.rows.length;
      yield page.rows;
      after = page.last;
    }
    // A session's entry ids run from 1 to its head.
    if (sessionId !== null && read !== through)
      throw new Error(`session ${JSON.stringify(sessionId)} of ${this.file ?? 'the tape'} was deleted while it was read`);
  }

  sessions(): SessionSummary[] {
    return this.c.queries.sessions();
  }

  /** The fold's input (FoldSource): rows after `afterEntryId`, from the in-memory row cache. */
  foldRows(sessionId: string, afterEntryId: number): FoldRow[] {
    return this.foldRowCache.rows(sessionId, afterEntryId);
  }

  /** `search`'s, `tape_search`'s and the inspector's search (src/store/search.ts). */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    return searchHits(this, query, options);
  }

  /** The index's matches of a query in the filter, with their BM25 scores (SearchSource): no payload read. */
  rankedMatches(query: SearchQuery, filter: MatchFilter): RankedMatches {
    this.c.settle();
    return this.c.search.rankedMatches(query, filter);
  }

  /** What judging needs of these matches' rows (SearchSource). */
  matchRows(matches: readonly RankedMatch[]): SearchMatch[] {
    return this.c.search.matchRows(matches);
  }

  /** The fold rows of these messages of a session (SearchSource): their versions, calls and results. */
  messageRows(sessionId: string, messageIds: readonly string[]): FoldRow[] {
    return this.c.queries.messageRows(sessionId, messageIds);
  }

  // ---- lifecycle ----

  /**
   * Deletes a session physically (privacy, disk): its rows, its words in the search index and the
   * freed pages go, then a checkpoint writes the snapshot without it and rotates the journal that
   * held its records, keeping none of them. Resolves once that is on disk; until then a crash
   * brings the session back. Not an append and not part of the tape's semantics: nothing records
   * that it existed. A reader following the tape reloads it (Journal.breakContinuity).
   */
  async deleteSession(sessionId: string): Promise<{ entries: number }> {
    if (this.readOnly) throw new Error(`${this.file ?? 'tape'} is open read-only; a session cannot be deleted`);
    this.durability?.assertHealthy();
    if (this.headEntryId(sessionId) === 0) throw new Error(`no session ${JSON.stringify(sessionId)} on ${this.file ?? 'this tape'}`);
    // Appends acknowledged before the delete must not be replayed after it.
    await this.durability?.barrier(false);
    // Settled first: the delete rebuilds the index from the rows left, the worker's rows with them.
    this.c.settle();
    const entries = deleteSessionRows(this.c.db, sessionId);
    this.c.queries.forget(sessionId);
    this.foldRowCache.clear();
    this.gen++;
    await this.durability?.checkpointRewrite();
    return { entries };
  }

  // ---- persistence ----

  /** A consistent image of the whole database, the caller's to keep. */
  snapshotBytes(): Uint8Array {
    this.c.settle();
    return this.c.db.export();
  }

  /**
   * Writes the database over the snapshot and rotates the journal (writable file tapes; see
   * Durability.checkpoint). Refused once the store has failed.
   */
  checkpoint(): Promise<void> {
    return this.durability?.checkpoint() ?? Promise.resolve();
  }

  /**
   * Follows a tape that another process writes (read-only file stores): each record the writer
   * journals is applied here as it lands, with the same change notifications as a local append,
   * and no reload. Only records that a checkpoint took into the snapshot before they could be read
   * (two checkpoints between two looks) force a full reload. Stopped by dispose or close.
   */
  follow(onError: (e: unknown) => void = (e) => console.error('agent-tape: following the tape failed:', e)): Disposable {
    if (!this.readOnly || !this.file) throw new Error('follow: only read-only file tapes follow a writer');
    this.following ??= new Follower(
      journalPathOf(this.file),
      this.tapeId,
      this.loadedAt,
      {
        apply: (records) => this.applyJournalRecords(records),
        reload: () => this.reload().then(() => this.loadedAt),
      },
      onError,
    );
    return { dispose: () => this.unfollow() };
  }

  /** Re-reads a read-only tape from disk, bumps the generation and announces what grew. */
  async reload(): Promise<void> {
    if (!this.readOnly || !this.file) throw new Error('reload: only read-only file tapes reload; a writable store is the source of truth');
    const before = this.sessions();
    const file = this.file;
    const r = await recover(await loadSqlJs(), file, journalPathOf(file), true, this.maxBytes);
    if (this.closed) return void r.db.close();
    this.c.close();
    this.paged?.close();
    this.conn = this.connect(r.db);
    this.paged = r.file;
    this.loadedAt = tailStartOf(r);
    this.foldRowCache.clear();
    this.gen++;
    for (const e of growthEvents(before, this.sessions())) this.events.fire(e);
  }

  /** Applies records a followed writer journaled: the rows, their heads and fold rows, and one event each. */
  private applyJournalRecords(records: readonly JournalRecord[]): void {
    const perRecord = records.map((r) => decodeRows(r.body));
    insertRows(this.c.db, perRecord.flat());
    for (const rows of perRecord) {
      // A record is one append transaction, which writes one session.
      const sessionId = rows[0][0] as string;
      const last = rows[rows.length - 1][1] as number;
      this.c.queries.advanceHead(sessionId, last);
      this.foldRowCache.extend(sessionId, rows.map(foldRowOfRow));
      this.events.fire({ sessionId, firstEntryId: rows[0][1] as number, lastEntryId: last });
    }
  }

  private unfollow(): void {
    this.following?.dispose();
    this.following = undefined;
  }

  /** Waits for pending appends, checkpoints (writable file tapes), releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.unfollow();
    this.conn.transaction.commit();
    this.closed = true;
    try {
      await this.durability?.close(this.openReport.migratedFrom !== null);
    } finally {
      this.conn.close();
      this.paged?.close();
      this.releaseLock();
    }
  }

  private tellIfNearlyFull(): void {
    const tell = this.options.onNearlyFull;
    if (!tell || this.toldNearlyFull || !this.file) return;
    const warning = nearlyFullWarning(this.file, this.c.databaseBytes(), this.maxBytes);
    if (warning === null) return;
    this.toldNearlyFull = true;
    tell(warning);
  }

  /** Closes the tool calls a crash left unanswered (crashRepair.ts), durably; returns how many. */
  private async repairInterruptedCalls(): Promise<number> {
    let repaired = 0;
    for (const [sessionId, entries] of interruptedCallRepairs(this.c.db, {
      foldRows: (s) => this.foldRows(s, 0),
      sessionStart: (s) => this.c.queries.sessionStart(s),
      getEntry: (s, id) => this.c.queries.getEntry(s, id),
    })) {
      const results = await this.appendMany(sessionId, entries, { durable: true });
      repaired += results.filter((r) => !r.deduplicated).length;
    }
    this.c.transaction.commit();
    markCallsChecked(this.c.db);
    return repaired;
  }

  /**
   * A commit that failed rolled its appends back while their journal records went out: the
   * database in memory no longer matches the disk, so the store fails (reopening recovers them).
   */
  private connect(db: Database, indexer?: ParallelIndexer): Connection {
    const file = this.file ?? 'the tape';
    // Neither the database nor the journal may grow past what an open reads back (tapeSize.ts).
    const checkRoom = (incoming: number): void => {
      checkRoomFor(file, conn.databaseBytes(), incoming, this.maxBytes);
      this.durability?.checkJournalRoom(incoming);
    };
    const conn = new Connection(db, file, checkRoom, (e) => this.durability?.markFailed(e, 'appends already journaled were rolled back in memory'), indexer);
    return conn;
  }

  // Runs in close() too, after the store counts as closed: hence the connection itself.
  private captureImage(lastSeq: number): CheckpointImage {
    const db = this.conn.db;
    this.conn.settle();
    writeMeta(db, 'last_seq', lastSeq);
    if (this.paged) {
      // Committed now, so it must be among the pages the PagedFile keeps (see there).
      const nonce = randomBytes(16).toString('hex');
      writeMeta(db, 'image_nonce', nonce);
      const patch = this.paged.capture(this.conn.databaseBytes(), Buffer.from(nonce, 'latin1'));
      if (patch) return patch;
      // The file system no longer writes there: the database is whole in memory from now on.
      this.paged.close();
      this.paged = null;
    }
    const bytes = db.export();
    return { write: (file, beforeCommit) => writeFileDurably(file, [bytes], false, beforeCommit) };
  }
}
