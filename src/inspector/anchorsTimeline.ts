import type { SessionReads } from './sessionReads';
import { renderCheckpoint, resolveSelector } from '../tape/context';
import { isReconstructionAnchor } from '../tape/entry';
import type { ViewAnchor } from '../tape/fold';
import type { AnchorItem } from '../protocol/inspector';

/** Every anchor row, as the fold lists its anchors: from the rows in memory, with no fold state to keep. */
export function anchorsOf(store: SessionReads, sessionId: string): ViewAnchor[] {
  const anchors: ViewAnchor[] = [];
  for (const r of store.foldRows(sessionId, 0)) if (r.kind === 'anchor') anchors.push({ entryId: r.entryId, name: r.name });
  return anchors;
}

/**
 * The session's anchors in tape order. The one in force is the one the default selector picks, as
 * for the next request; the checkpoint is the very message a request starting at the anchor reads
 * (only reconstruction anchors have one: the others never move the cursor).
 */
export function anchorItems(store: SessionReads, sessionId: string): AnchorItem[] {
  const anchors = anchorsOf(store, sessionId);
  const { anchorEntryId } = resolveSelector(anchors, { kind: 'last' });
  return anchors.map((a) => {
    const entry = store.requireEntry(sessionId, a.entryId);
    return {
      entryId: a.entryId,
      name: a.name,
      createdAt: entry.createdAt,
      inForce: a.entryId === anchorEntryId,
      state: JSON.stringify(entry.payload.state ?? null, null, 2),
      checkpoint: isReconstructionAnchor(a.name) ? renderCheckpoint(entry) : null,
    };
  });
}
