import type { TapeStore } from '../store/tapeStore';
import { renderCheckpoint, resolveSelector } from '../tape/context';
import { isReconstructionAnchor } from '../tape/entry';
import type { FoldCache } from '../tape/foldCache';
import type { AnchorItem } from '../protocol/inspector';

/**
 * The session's anchors in tape order. The one in force is the one the default selector picks, as
 * for the next request; the checkpoint is the very message a request starting at the anchor reads
 * (only reconstruction anchors have one: the others never move the cursor).
 */
export function anchorItems(store: TapeStore, folds: FoldCache, sessionId: string): AnchorItem[] {
  const { anchors } = folds.view(sessionId, { includePending: true });
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
