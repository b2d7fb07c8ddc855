import { PIN_EVENT, SUMMARY_EDIT_EVENT, UNDO_EVENT } from './entryNames';
import { isReconstructionAnchor, type Kind } from './entry';

/**
 * The anchors of a view and the amendments of each compaction (issue 20). A user amends a
 * compaction by appending: a pin (facts or entries that go verbatim into every later context after
 * the summary), an edited summary (superseding the model's), or an undo (later contexts go back to
 * the anchor before it). Nothing is rewritten: the anchor and every entry it stands for stay as
 * they were, and a context built with the builder before amendments (`agent-tape/assemble@1`)
 * ignores them.
 *
 * An amendment applies to the reconstruction anchor in force when it is appended: the last one
 * not undone. Its data also names that anchor (`anchorEntryId`) for readers; the session handle
 * refuses to append one that names another, and the fold reads only the rows' names, never a
 * payload, so the in-force rule is what decides.
 */

export interface AnchorAmendments {
  /** The `compaction/pin` events, in tape order. */
  readonly pins: readonly number[];
  /** The last `compaction/summary-edit` event: its summary replaces the anchor's. */
  readonly summaryEntryId: number | null;
  /** The `compaction/undo` event that took this anchor out of force. */
  readonly undoneBy: number | null;
}

export interface ViewAnchor {
  readonly entryId: number;
  readonly name: string;
  /** Set once something amended this anchor. */
  readonly amendments?: AnchorAmendments;
}

const NONE: AnchorAmendments = { pins: [], summaryEntryId: null, undoneBy: null };

/** The reconstruction anchor amendments apply to: the last one no undo took out of force. */
export function amendableIndex(anchors: readonly ViewAnchor[]): number {
  for (let i = anchors.length - 1; i >= 0; i--) {
    if (isReconstructionAnchor(anchors[i].name) && anchors[i].amendments?.undoneBy == null) return i;
  }
  return -1;
}

/** The anchor amendments apply to, or null when no reconstruction anchor is in force. */
export function amendableAnchor(anchors: readonly ViewAnchor[]): ViewAnchor | null {
  const i = amendableIndex(anchors);
  return i < 0 ? null : anchors[i];
}

/**
 * Folds one row into the anchor list, in place: an anchor is appended, an amendment replaces the
 * anchor it applies to with its amended copy. Returns whether the row was an anchor or amendment.
 */
export function applyAnchorRow(anchors: ViewAnchor[], row: { entryId: number; kind: Kind; name: string }): boolean {
  if (row.kind === 'anchor') {
    anchors.push({ entryId: row.entryId, name: row.name });
    return true;
  }
  if (row.kind !== 'event' || (row.name !== PIN_EVENT && row.name !== SUMMARY_EDIT_EVENT && row.name !== UNDO_EVENT)) return false;
  const i = amendableIndex(anchors);
  if (i < 0) return true;
  const a = anchors[i];
  const was = a.amendments ?? NONE;
  const amendments: AnchorAmendments =
    row.name === PIN_EVENT
      ? { ...was, pins: [...was.pins, row.entryId] }
      : row.name === SUMMARY_EDIT_EVENT
        ? { ...was, summaryEntryId: row.entryId }
        : { ...was, undoneBy: row.entryId };
  anchors[i] = { ...a, amendments };
  return true;
}
