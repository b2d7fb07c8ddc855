import { FORK_DISCARD, FORK_MERGE, FORK_START, SUBAGENT_LINKED, SUBAGENT_START } from '../tape/entryNames';
import type { Entry } from '../tape/entry';
import { discardReceiptData, forkStartOf, linkData, mergeReceiptData, receiptOf, subagentStartState } from '../tape/fork';
import type { ReceiptItem } from '../protocol/inspector';

/** The entries that record a session's lineage: its own start as a fork or subagent, and its decisions about its children. */
export const LINEAGE_NAMES: ReadonlySet<string> = new Set([FORK_START, SUBAGENT_START, FORK_MERGE, FORK_DISCARD, SUBAGENT_LINKED]);

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * A lineage entry in words, with the session it is about (the parent for a start, the fork or
 * child for a receipt); null for any other entry or a malformed one, which the Entries view still
 * shows as it is.
 */
export function receiptItemOf(entry: Entry): ReceiptItem | null {
  const item = (summary: string, aboutSessionId: string | null): ReceiptItem => ({
    entryId: entry.entryId,
    name: entry.name,
    createdAt: entry.createdAt,
    summary,
    aboutSessionId,
  });
  if (entry.kind === 'anchor' && entry.name === FORK_START) {
    const fork = forkStartOf(entry);
    return fork && item(`Forked as "${fork.forkId}" from ${fork.parentSessionId} at #${fork.parentHeadEntryId}.`, fork.parentSessionId);
  }
  if (entry.kind === 'anchor' && entry.name === SUBAGENT_START) {
    const start = subagentStartState.safeParse((entry.payload as { state?: unknown }).state);
    if (!start.success) return null;
    const tools = start.data.tools === undefined ? '' : ` Tools: ${start.data.tools.join(', ') || 'none'}.`;
    return item(`Subagent of ${start.data.parentSessionId}. Task: ${start.data.task}${tools}`, start.data.parentSessionId);
  }
  const merge = receiptOf(entry, FORK_MERGE, mergeReceiptData);
  if (merge) {
    const moved = merge.parentMovedOn
      ? `the parent had moved on (#${merge.parentHeadAtFork} at the fork, #${merge.parentHeadAtMerge} at the merge)`
      : `the parent had not moved on since #${merge.parentHeadAtFork}`;
    return item(
      `Merged fork "${merge.forkId}" up to its #${merge.forkHeadEntryId}: ${plural(merge.mergedCount, 'entry', 'entries')}; ${moved}.`,
      merge.forkSessionId,
    );
  }
  const discard = receiptOf(entry, FORK_DISCARD, discardReceiptData);
  if (discard)
    return item(`Discarded fork "${discard.forkId}" at its #${discard.forkHeadEntryId}${discard.reason ? `: ${discard.reason}` : '.'}`, discard.forkSessionId);
  const link = receiptOf(entry, SUBAGENT_LINKED, linkData);
  if (link) {
    const outcome = link.outcome === undefined ? '' : ` (${link.outcome})`;
    const head = link.childHeadEntryId === undefined ? ', with no frozen head: nothing of it is readable from here' : `, frozen at #${link.childHeadEntryId}`;
    const summary = link.summary ? ` ${link.summary}` : '';
    return item(`Linked subagent ${link.childSessionId}${outcome}${head}.${summary}`, link.childSessionId);
  }
  return null;
}
