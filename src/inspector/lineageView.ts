import { childrenOf, lineageOf } from '../store/forks';
import type { TapeReader } from '../store/lineage';
import type { TapeStore } from '../store/tapeStore';
import type { LineageView } from '../protocol/inspector';
import { LINEAGE_NAMES, receiptItemOf } from './receipts';
import type { SessionTitles } from './sessionTitles';
import { SubagentTasks } from './subagentTasks';

/**
 * A session's place among its relatives: the sessions it descends from (root first, with where
 * each branched off), its direct forks and subagents with their title, task, state and receipt,
 * and its lineage entries in words. Entry ids are positions of the session's view, as in the other views.
 */
export function lineageView(store: TapeStore, reader: TapeReader, titles: SessionTitles, sessionId: string): LineageView {
  const chain = lineageOf(store, sessionId);
  // A subagent goes by its task (subagentTasks.ts), other sessions by their own title.
  const ancestors = chain.map((s, i) => {
    const parent = chain[i - 1];
    const task = s.relation === 'subagent' && parent !== undefined ? new SubagentTasks(reader, parent.sessionId).of(s.sessionId) : null;
    return { sessionId: s.sessionId, title: task?.title ?? titles.title(s.sessionId), relation: s.relation, at: s.at };
  });
  const tasks = new SubagentTasks(reader, sessionId);
  const children = childrenOf(store, sessionId).map((c) => {
    const receiptEntryId = c.receipt?.receiptEntryId;
    const stored = receiptEntryId === undefined ? undefined : store.getEntry(sessionId, receiptEntryId);
    const task = c.relation === 'subagent' ? tasks.of(c.sessionId) : null;
    return {
      sessionId: c.sessionId,
      title: task?.title ?? titles.title(c.sessionId),
      task: task?.task ?? null,
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
