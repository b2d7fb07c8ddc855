import type { TapeStore } from '../store/tapeStore';
import { cursorOf, isAfterCursor, resolveSelector, type Cursor } from '../tape/context';
import { isReconstructionAnchor, RETRACTED_EVENT, textOf } from '../tape/entry';
import type { FoldRow, ViewMessage } from '../tape/fold';
import { FoldCache, type FoldSource } from '../tape/foldCache';
import type { TranscriptItem } from '../protocol/inspector';
import { summaryOf } from './entryRows';

export const TEXT_MAX = 4000;

type Marker = TranscriptItem['markers'][number];

const isRetraction = (r: FoldRow): boolean => r.kind === 'event' && r.name === RETRACTED_EVENT;

/**
 * The store's rows without retraction events. Folding them gives every message as if it had never
 * been retracted, with the version and tool facts the fold's own rules pick: what a retracted
 * message looked like, without a second copy of those rules.
 */
const unretracted = (store: TapeStore): FoldSource => ({
  generation: () => store.generation(),
  headEntryId: (s) => store.headEntryId(s),
  foldRows: (s, after) => store.foldRows(s, after).filter((r) => !isRetraction(r)),
});

/** Per session: each message's raw entries (versions, tool facts, retractions) and how many versions it has. */
interface MessageIndex {
  generation: number;
  head: number;
  byMessage: Map<string, { entryIds: number[]; versions: number }>;
}

/**
 * The transcript the inspector shows: the effective view with pending messages (FoldCache), plus
 * the messages a retraction took out, each marked. Built from the fold rows; payloads are read only
 * for the items built, so a delta after an append costs the messages it touched.
 */
export class Transcript {
  private readonly all: FoldCache;
  private readonly indexes = new Map<string, MessageIndex>();

  constructor(
    private readonly store: TapeStore,
    /** The effective view; shared with the host's other readers of the same store. */
    private readonly folds: FoldCache = new FoldCache(store),
  ) {
    this.all = new FoldCache(unretracted(store));
  }

  /** Every item, in conversation order. */
  items(sessionId: string): TranscriptItem[] {
    return this.build(sessionId, null);
  }

  /**
   * The items the rows appended after `afterEntryId` made new or changed. A new reconstruction
   * anchor moves the cursor, which changes the `compacted` marker of every message.
   */
  changedSince(sessionId: string, afterEntryId: number): TranscriptItem[] {
    const touched = new Set<string>();
    for (const r of this.store.foldRows(sessionId, afterEntryId)) {
      if (r.kind === 'anchor' && isReconstructionAnchor(r.name)) return this.build(sessionId, null);
      if (r.messageId !== null) touched.add(r.messageId);
    }
    return touched.size === 0 ? [] : this.build(sessionId, touched);
  }

  private build(sessionId: string, only: ReadonlySet<string> | null): TranscriptItem[] {
    const effective = this.folds.view(sessionId, { includePending: true });
    const shown = new Set(effective.messages.map((m) => m.messageId));
    const { anchorEntryId } = resolveSelector(effective.anchors, { kind: 'last' });
    const cursor: Cursor | null = anchorEntryId === null ? null : cursorOf(this.store.requireEntry(sessionId, anchorEntryId));
    const index = this.index(sessionId);
    const view = this.all.view(sessionId, { includePending: true });
    const items: TranscriptItem[] = [];
    for (const m of view.messages) {
      if (only !== null && !only.has(m.messageId)) continue;
      const facts = view.toolFacts.get(m.messageId);
      const entry = this.store.requireEntry(sessionId, m.entryId);
      const text = textOf(entry.payload.content ?? '');
      const known = index.byMessage.get(m.messageId);
      items.push({
        entryId: m.entryId,
        messageId: m.messageId,
        role: m.role,
        status: m.status,
        text: text.length > TEXT_MAX ? text.slice(0, TEXT_MAX) : text,
        cut: text.length > TEXT_MAX,
        markers: markersOf(m, {
          revised: (known?.versions ?? 1) > 1,
          retracted: !shown.has(m.messageId),
          compacted: cursor !== null && !isAfterCursor(m, cursor),
          merged: entry.meta.mergedFrom !== undefined,
        }),
        entryIds: known?.entryIds.slice() ?? [m.entryId],
        toolCalls: (facts?.calls ?? []).map((c) => {
          const call = this.store.requireEntry(sessionId, c.entryId);
          const result = facts?.results.get(c.toolCallId) ?? null;
          return { entryId: c.entryId, name: c.name, summary: summaryOf(call.kind, call.name, call.payload), resultStatus: result?.status ?? null, resultEntryId: result?.entryId ?? null };
        }),
      });
    }
    return items;
  }

  private index(sessionId: string): MessageIndex {
    const generation = this.store.generation();
    const head = this.store.headEntryId(sessionId);
    let index = this.indexes.get(sessionId);
    if (index === undefined || index.generation !== generation || index.head > head) {
      index = { generation, head: 0, byMessage: new Map() };
      this.indexes.set(sessionId, index);
    }
    if (index.head < head) {
      for (const r of this.store.foldRows(sessionId, index.head)) {
        if (r.messageId === null) continue;
        let m = index.byMessage.get(r.messageId);
        if (m === undefined) index.byMessage.set(r.messageId, (m = { entryIds: [], versions: 0 }));
        m.entryIds.push(r.entryId);
        if (r.kind === 'message') m.versions++;
      }
      index.head = head;
    }
    return index;
  }
}

function markersOf(m: ViewMessage, flags: Record<'revised' | 'retracted' | 'compacted' | 'merged', boolean>): Marker[] {
  const markers: Marker[] = [];
  if (flags.revised) markers.push('revised');
  if (flags.retracted) markers.push('retracted');
  if (flags.compacted) markers.push('compacted');
  if (flags.merged) markers.push('merged');
  if (m.status === 'pending') markers.push('pending');
  if (m.status === 'error') markers.push('error');
  return markers;
}
