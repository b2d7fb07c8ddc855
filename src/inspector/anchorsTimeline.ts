import type { SessionReads } from './sessionReads';
import { auditCompaction, isCompactionAnchor } from '../tape/compactionAudit';
import { renderCheckpoint, resolveSelector } from '../tape/context';
import { isReconstructionAnchor, type Entry } from '../tape/entry';
import { applyAnchorRow, type ViewAnchor } from '../tape/anchorFold';
import { MAX_MISSING_FACTS, type AnchorItem, type CompactionAuditSummary } from '../protocol/inspector';

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

/**
 * The session's anchors in tape order. The one in force is the one the default selector picks, as
 * for the next request; the checkpoint is the very message a request starting at the anchor reads
 * (only reconstruction anchors have one: the others never move the cursor). Each compaction anchor
 * carries its audit; the view's entries are read once, and only when there is a compaction.
 */
export function anchorItems(store: SessionReads, sessionId: string): AnchorItem[] {
  const anchors = anchorsOf(store, sessionId);
  const { anchorEntryId } = resolveSelector(anchors, { kind: 'last' });
  const withEntries = anchors.map((a) => ({ a, entry: store.requireEntry(sessionId, a.entryId) }));
  const entries = withEntries.some(({ entry }) => isCompactionAnchor(entry)) ? store.entries(sessionId) : null;
  return withEntries.map(({ a, entry }) => ({
    entryId: a.entryId,
    name: a.name,
    createdAt: entry.createdAt,
    inForce: a.entryId === anchorEntryId,
    state: JSON.stringify(entry.payload.state ?? null, null, 2),
    checkpoint: isReconstructionAnchor(a.name) ? renderCheckpoint(entry) : null,
    audit: entries !== null && isCompactionAnchor(entry) ? auditSummaryOf(entries, a.entryId) : null,
  }));
}
