import { RETRACTED_EVENT, TITLE_EVENT } from './entryNames';
import { type Entry, type Kind } from './entry';
import { foldAll, type FoldRow } from './fold';
import { projectionView, runProjection } from './projections/projection';
import { titleProjection } from './projections/title';

/** What a session's title is read from (a TapeStore, or the lineage reader, through which a fork reads its parent's messages). */
export interface TitleReads {
  entries(sessionId: string, filter: { kind?: Kind; name?: string }): readonly Entry[];
  foldRows(sessionId: string, afterEntryId: number): readonly FoldRow[];
  requireEntry(sessionId: string, entryId: number): Entry;
}

const titleOf = (entries: readonly Entry[]): string | null => projectionView(titleProjection, runProjection(titleProjection, entries));

/**
 * A session's title as `titleProjection` names it, reading only the entries that can decide one:
 * the `session/title` events, else the shown version of the first effective user messages, found
 * by folding the message rows. Running the projection over a session reads and parses every entry
 * and keeps a log of every message; this reads a handful of entries.
 */
export function sessionTitleOf(reads: TitleReads, sessionId: string): string | null {
  const explicit = titleOf(reads.entries(sessionId, { kind: 'event', name: TITLE_EVENT }));
  if (explicit !== null) return explicit;
  const rows = reads.foldRows(sessionId, 0).filter((r) => r.kind === 'message' || (r.kind === 'event' && r.name === RETRACTED_EVENT));
  // The projection folds without pending messages: a message still streaming does not name the session.
  for (const m of foldAll(rows, { includePending: false }).messages) {
    if (m.role !== 'user') continue;
    const title = titleOf([reads.requireEntry(sessionId, m.entryId)]);
    if (title !== null) return title;
  }
  return null;
}
