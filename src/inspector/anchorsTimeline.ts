import type { SessionReads } from './sessionReads';
import { auditCompaction, isCompactionAnchor } from '../tape/audit/compactionAudit';
import { checkpointSummaryText, renderCheckpoint, resolveSelector } from '../tape/context';
import { isReconstructionAnchor, type Entry } from '../tape/entry';
import { amendableAnchor, applyAnchorRow, type AnchorAmendments, type ViewAnchor } from '../tape/anchorFold';
import { editedSummaryOf, pinnedOf } from '../tape/pinnedContext';
import { MAX_MISSING_FACTS, type AnchorAmendmentsInfo, type AnchorItem, type CompactionAuditSummary } from '../protocol/inspector';

/** Every anchor row with its amendments, as the fold lists them: from the rows in memory, with no fold state to keep. */
export function anchorsOf(store: SessionReads, sessionId: string): ViewAnchor[] {
  const anchors: ViewAnchor[] = [];
  for (const r of store.foldRows(sessionId, 0)) applyAnchorRow(anchors, r);
  return anchors;
}

/** The audit as the page shows it: the totals, and only the facts the summary left out, capped so a long range stays a small reply. */
function auditSummaryOf(entries: readonly Entry[], anchorEntryId: number): CompactionAuditSummary {
  const audit = auditCompaction(entries, anchorEntryId);
  const missing = audit.facts.filter((f) => !f.inSummary).map((f) => ({ kind: f.kind, value: f.value, entryIds: f.entryIds }));
  return {
    range: audit.range,
    totals: audit.totals,
    missing: missing.slice(0, MAX_MISSING_FACTS),
    missingOmitted: Math.max(0, missing.length - MAX_MISSING_FACTS),
  };
}

/** The amendments as the page shows them: the pins' facts and entries read out (an unreadable pin names none). */
function amendmentsInfoOf(amendments: AnchorAmendments, load: (id: number) => Entry | undefined): AnchorAmendmentsInfo {
  const pinned = pinnedOf(amendments, load);
  return {
    pins: [...amendments.pins],
    pinnedFacts: pinned.facts,
    pinnedEntryIds: pinned.entries.map((e) => e.entryId).sort((a, b) => a - b),
    summaryEntryId: amendments.summaryEntryId,
    undoneBy: amendments.undoneBy,
  };
}

/**
 * The session's anchors in tape order. The one in force is the one the default selector picks, as
 * for the next request; the checkpoint is the very message a request starting at the anchor reads
 * (only reconstruction anchors have one: the others never move the cursor), with its edited
 * summary if it has one. Each compaction anchor carries its audit; the view's entries are read
 * once, and only when there is a compaction. The compaction amendments apply to is marked
 * `amendable`, with the summary in force for an editor to start from.
 */
export function anchorItems(store: SessionReads, sessionId: string): AnchorItem[] {
  const anchors = anchorsOf(store, sessionId);
  const { anchorEntryId } = resolveSelector(anchors, { kind: 'last' });
  const load = (id: number): Entry | undefined => store.getEntry(sessionId, id);
  const amendableId = amendableAnchor(anchors)?.entryId;
  const withEntries = anchors.map((a) => ({ a, entry: store.requireEntry(sessionId, a.entryId) }));
  const entries = withEntries.some(({ entry }) => isCompactionAnchor(entry)) ? store.entries(sessionId) : null;
  return withEntries.map(({ a, entry }) => {
    const edited = editedSummaryOf(a.amendments, load);
    return {
      entryId: a.entryId,
      name: a.name,
      createdAt: entry.createdAt,
      inForce: a.entryId === anchorEntryId,
      state: JSON.stringify(entry.payload.state ?? null, null, 2),
      checkpoint: isReconstructionAnchor(a.name) ? renderCheckpoint(entry, edited) : null,
      audit: entries !== null && isCompactionAnchor(entry) ? auditSummaryOf(entries, a.entryId) : null,
      amendments: a.amendments === undefined ? null : amendmentsInfoOf(a.amendments, load),
      amendable: a.entryId === amendableId && isCompactionAnchor(entry) ? { summary: edited ?? checkpointSummaryText(entry) } : null,
    };
  });
}
