import { RETRACTED_EVENT, UNDO_EVENT, TURN_END, TURN_START } from '../tape/entryNames';
import type { SessionReads } from './sessionReads';
import { cursorOf, isAfterCursor, resolveSelector, type Cursor } from '../tape/context';
import { isReconstructionAnchor, textOf, type Entry } from '../tape/entry';
import { summaryOf } from '../tape/entrySummary';
import { mergedFromOf } from '../tape/fork';
import { foldAll, type FoldOptions, type FoldRow, type ViewMessage } from '../tape/fold';
import type { TurnChanges } from '../tape/workspaceCheckpoint';
import type { TranscriptItem } from '../protocol/inspector';
import { anchorsOf } from './anchorsTimeline';
import { TurnFileChanges } from './turnFileChanges';

export const TEXT_MAX = 4000;
/** The transcript opens on this many last items: a screenful many times over, a small fraction of a long session. */
export const LAST_PAGE = 200;

const PENDING: FoldOptions = { includePending: true };

type Marker = TranscriptItem['markers'][number];

export interface TranscriptPage {
  /** Of the first item, in the whole transcript. */
  offset: number;
  total: number;
  items: TranscriptItem[];
  /** The first entry from which the session has a workspace checkpoint; absent when it has none. */
  checkpointsFrom?: number;
}

const isRetraction = (r: FoldRow): boolean => r.kind === 'event' && r.name === RETRACTED_EVENT;

/**
 * Per session: the transcript's order, as the entry id of each message's shown version. The
 * transcript is every message the fold admits as if nothing had been retracted (a retracted one is
 * shown, marked), so only message rows place an item. One number per message is all that is kept:
 * a page reads its messages' rows from the store's in-memory fold rows and folds just those, and a
 * message's fate depends on its own rows only, so the fold's rules apply without a second copy of
 * them and without a fold state of the whole session.
 */
interface Order {
  generation: number;
  head: number;
  entryIds: number[];
}

/** Of the ordered `entryIds` (whose rows are in `rows`, entry n at n - 1), how many precede `m`. */
function countBefore(entryIds: readonly number[], rows: readonly FoldRow[], m: ViewMessage): number {
  let lo = 0;
  let hi = entryIds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = entryIds[mid];
    const seq = rows[e - 1].orderSeq as number;
    if (seq < m.orderSeq || (seq === m.orderSeq && e < m.entryId)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The message rows, of the messages `ids` names or of all: the rows that decide which messages are shown, and in which version. */
const messageRowsOf = (rows: readonly FoldRow[], ids: ReadonlySet<string> | null): FoldRow[] =>
  rows.filter((r) => r.kind === 'message' && r.messageId !== null && (ids === null || ids.has(r.messageId)));

/**
 * The transcript the inspector shows: the effective view with pending messages, plus the messages a
 * retraction took out, each marked. Items are built per page; payloads are read for those only.
 */
export class Transcript {
  private readonly orders = new Map<string, Order>();
  private readonly fileChanges: TurnFileChanges;

  constructor(private readonly store: SessionReads) {
    this.fileChanges = new TurnFileChanges(store);
  }

  /** The items from `offset`, at most `limit` of them, in conversation order. */
  page(sessionId: string, offset: number, limit: number): TranscriptPage {
    const { entryIds } = this.order(sessionId);
    const from = Math.min(Math.max(0, Math.floor(offset)), entryIds.length);
    const checkpointsFrom = this.checkpointsFrom(sessionId);
    return {
      offset: from,
      total: entryIds.length,
      items: this.build(sessionId, entryIds.slice(from, from + Math.max(0, Math.floor(limit)))),
      ...(checkpointsFrom === null ? {} : { checkpointsFrom }),
    };
  }

  /** Where "Restore Files to Here" may restore from: the first entry a workspace checkpoint stands for; null when the session has none. */
  checkpointsFrom(sessionId: string): number | null {
    return this.fileChanges.of(sessionId).checkpointsFrom;
  }

  lastPage(sessionId: string, limit = LAST_PAGE): TranscriptPage {
    return this.page(sessionId, this.order(sessionId).entryIds.length - limit, limit);
  }

  /**
   * The items the rows appended after `afterEntryId` made new or changed. A new reconstruction
   * anchor (or an undo of one) moves the cursor, which changes the `compacted` marker of every
   * message: then every item from `loadedFrom` (the first the page holds) to the end. A turn's `turn_end` checkpoint changes
   * the item of the message that ended the turn, which gains the turn's file changes.
   */
  changedSince(sessionId: string, afterEntryId: number, loadedFrom = 0): TranscriptItem[] {
    const touched = new Set<string>();
    for (const r of this.store.foldRows(sessionId, afterEntryId)) {
      if ((r.kind === 'anchor' && isReconstructionAnchor(r.name)) || (r.kind === 'event' && r.name === UNDO_EVENT))
        return this.page(sessionId, loadedFrom, Number.MAX_SAFE_INTEGER).items;
      if (r.messageId !== null) touched.add(r.messageId);
    }
    for (const messageId of this.fileChanges.endedAfter(sessionId, afterEntryId)) touched.add(messageId);
    if (touched.size === 0) return [];
    const shown = foldAll(messageRowsOf(this.store.foldRows(sessionId, 0), touched), PENDING).messages;
    return this.build(
      sessionId,
      shown.map((m) => m.entryId),
    );
  }

  /** The order at the store's head: built once with a fold of the message rows, then moved by the messages new rows touch. */
  private order(sessionId: string): Order {
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    let o = this.orders.get(sessionId);
    if (o === undefined || o.generation !== generation || o.head > head) {
      o = { generation, head, entryIds: foldAll(messageRowsOf(this.store.foldRows(sessionId, 0), null), PENDING).messages.map((m) => m.entryId) };
      this.orders.set(sessionId, o);
      return o;
    }
    if (o.head === head) return o;
    const rows = this.store.foldRows(sessionId, 0);
    const touched = new Set<string>();
    for (let i = o.head; i < head; i++) if (rows[i].kind === 'message' && rows[i].messageId !== null) touched.add(rows[i].messageId as string);
    if (touched.size > 0) {
      const mine = messageRowsOf(rows, touched);
      const before = o.head;
      for (const m of foldAll(
        mine.filter((r) => r.entryId <= before),
        PENDING,
      ).messages)
        o.entryIds.splice(countBefore(o.entryIds, rows, m), 1);
      for (const m of foldAll(mine, PENDING).messages) o.entryIds.splice(countBefore(o.entryIds, rows, m), 0, m.entryId);
    }
    o.head = head;
    return o;
  }

  /** The items of the messages whose shown versions are `entryIds`, in the order given. */
  private build(sessionId: string, entryIds: readonly number[]): TranscriptItem[] {
    if (entryIds.length === 0) return [];
    const rows = this.store.foldRows(sessionId, 0);
    const ids = new Set(entryIds.map((e) => rows[e - 1].messageId as string));
    // One pass over the rows kept in memory for the shown messages' own rows.
    const mine: FoldRow[] = [];
    const behind = new Map<string, { entryIds: number[]; versions: number }>([...ids].map((id) => [id, { entryIds: [], versions: 0 }]));
    for (const r of rows) {
      const b = r.messageId === null ? undefined : behind.get(r.messageId);
      if (b === undefined) continue;
      mine.push(r);
      b.entryIds.push(r.entryId);
      if (r.kind === 'message') b.versions++;
    }
    const effective = new Set(foldAll(mine, PENDING).messages.map((m) => m.messageId));
    const unretracted = foldAll(
      mine.filter((r) => !isRetraction(r)),
      PENDING,
    );
    const byEntry = new Map(unretracted.messages.map((m) => [m.entryId, m]));
    const { anchorEntryId } = resolveSelector(anchorsOf(this.store, sessionId), { kind: 'last' });
    const cursor: Cursor | null = anchorEntryId === null ? null : cursorOf(this.store.requireEntry(sessionId, anchorEntryId));
    const turns = rows.filter(isTurnRow);
    const { byMessage } = this.fileChanges.of(sessionId);
    return entryIds.map((entryId) => {
      const m = byEntry.get(entryId) as ViewMessage;
      const facts = unretracted.toolFacts.get(m.messageId);
      const entry = this.store.requireEntry(sessionId, entryId);
      const text = textOf(entry.payload.content ?? '');
      const known = behind.get(m.messageId) as { entryIds: number[]; versions: number };
      const origin = originOf(entry, this.store.origin?.(sessionId, entryId));
      const changes = byMessage.get(m.messageId);
      return {
        entryId,
        messageId: m.messageId,
        role: m.role,
        status: m.status,
        text: text.length > TEXT_MAX ? text.slice(0, TEXT_MAX) : text,
        cut: text.length > TEXT_MAX,
        markers: markersOf(m, {
          revised: known.versions > 1,
          retracted: !effective.has(m.messageId),
          compacted: cursor !== null && !isAfterCursor(m, cursor),
          merged: entry.meta.mergedFrom !== undefined,
          inherited: origin?.via === 'parent',
        }),
        entryIds: known.entryIds,
        toolCalls: (facts?.calls ?? []).map((call) => {
          const e = this.store.requireEntry(sessionId, call.entryId);
          const result = facts?.results.get(call.toolCallId) ?? null;
          return {
            entryId: call.entryId,
            name: call.name,
            summary: summaryOf(e.kind, e.name, e.payload),
            resultStatus: result?.status ?? null,
            resultEntryId: result?.entryId ?? null,
          };
        }),
        ...(origin === null ? {} : { origin }),
        forkAt: forkPointAfter(turns, Math.max(...known.entryIds)),
        ...(changes === undefined || changes.files.length + changes.filesOmitted === 0 ? {} : { fileChanges: fileChangesOf(changes) }),
      };
    });
  }
}

/** A turn's changes as the item that ends it carries them. */
const fileChangesOf = (t: TurnChanges): NonNullable<TranscriptItem['fileChanges']> => ({
  beforeId: t.beforeId,
  afterId: t.afterId,
  entryId: t.entryId,
  files: t.files.map(({ path, change, added, removed }) => ({ path, change, added, removed })),
  filesOmitted: t.filesOmitted,
});

const isTurnRow = (r: FoldRow): boolean => r.kind === 'event' && (r.name === TURN_START || r.name === TURN_END);

/**
 * Where a fork after entry `last` may start: `last` itself, unless a turn is running there; then
 * the turn's end. A session runs one turn at a time, so the first turn event after `last` tells:
 * a `turn/end` closes the turn `last` is in. A turn still running has no end yet: the fork at
 * `last` is then refused with the reason, as it should be.
 */
function forkPointAfter(turns: readonly FoldRow[], last: number): number {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (turns[mid].entryId <= last) lo = mid + 1;
    else hi = mid;
  }
  const next = turns[lo];
  return next !== undefined && next.name === TURN_END ? next.entryId : last;
}

/** Where a shown version comes from when it is not the session's own: a merge's `meta.mergedFrom`, else where the reader stores it. */
function originOf(entry: Entry, stored: { sessionId: string; entryId: number } | undefined): NonNullable<TranscriptItem['origin']> | null {
  const merged = mergedFromOf(entry);
  if (merged !== null) return { via: 'merge', ...merged };
  if (stored !== undefined && stored.sessionId !== entry.sessionId) return { via: 'parent', ...stored };
  return null;
}

function markersOf(m: ViewMessage, flags: Record<'revised' | 'retracted' | 'compacted' | 'merged' | 'inherited', boolean>): Marker[] {
  const markers: Marker[] = [];
  if (flags.revised) markers.push('revised');
  if (flags.retracted) markers.push('retracted');
  if (flags.compacted) markers.push('compacted');
  if (flags.merged) markers.push('merged');
  if (flags.inherited) markers.push('inherited');
  if (m.status === 'pending') markers.push('pending');
  if (m.status === 'error') markers.push('error');
  return markers;
}
