import { childrenOf, lineageOf } from '../store/forks';
import type { TapeReader } from '../store/lineage';
import type { TapeStore } from '../store/tapeStore';
import type { LineageView } from '../protocol/inspector';
import { LINEAGE_NAMES, receiptItemOf } from './receipts';
import type { SessionTitles } from './sessionTitles';

/**
 * A session's place among its relatives: the sessions it descends from (root first, with where
 * each branched off), its direct forks and subagents with their state and receipt, and its
 * lineage entries in words. Entry ids are positions of the session's view, as in the other views.
 */
export function lineageView(store: TapeStore, reader: TapeReader, titles: SessionTitles, sessionId: string): LineageView {
  const ancestors = lineageOf(store, sessionId).map((s) => ({ sessionId: s.sessionId, title: titles.title(s.sessionId), relation: s.relation, at: s.at }));
  const children = childrenOf(store, sessionId).map((c) => {
    const receiptEntryId = c.receipt?.receiptEntryId;
    const stored = receiptEntryId === undefined ? undefined : store.getEntry(sessionId, receiptEntryId);
    return {
      sessionId: c.sessionId,
      title: titles.title(c.sessionId),
      relation: c.relation,
      state: c.state,
      receipt: (stored && receiptItemOf(stored)?.summary) ?? '',
      receiptEntryId: receiptEntryId === undefined ? null : reader.positionOf(sessionId, receiptEntryId),
    };
  });
  const receipts = [];
  for (const r of reader.foldRows(sessionId, 0)) {
    if ((r.kind !== 'anchor' && r.kind !== 'event') || !LINEAGE_NAMES.has(r.name)) continue;
    const item = receiptItemOf(reader.requireEntry(sessionId, r.entryId));
    if (item !== null) receipts.push(item);
  }
  return { ancestors, children, receipts };
}
