import { editsOfEntry } from '../tape/blame/editCalls';
import type { FileChange, FileEvent } from '../tape/blame/fileChange';
import type { TapeStore } from '../store/tapeStore';
import type { EditIndex, EntryRef, IndexedChange } from './editIndex';

/** Reads a file's content in one of our agent's checkpoints: null when the store cannot give it. */
export type CheckpointReader = (checkpointId: string, relPath: string) => Promise<string | null>;

/** A file a move's chain leads back through at most this many times (a file moved back and forth). */
const MAX_MOVES = 32;

/** Tape order: when the entry was recorded, then its session and its place in the session. */
function byTapeOrder(a: IndexedChange, b: IndexedChange): number {
  return (
    a.ref.createdAt - b.ref.createdAt ||
    (a.ref.sessionId < b.ref.sessionId ? -1 : a.ref.sessionId > b.ref.sessionId ? 1 : 0) ||
    a.ref.entryId - b.ref.entryId ||
    (a.kind === 'edit' && b.kind === 'edit' ? a.edit - b.edit : 0)
  );
}

const isMoveInto = (c: IndexedChange, path: string): boolean => c.kind === 'edit' && c.movedTo === path && c.path !== path;

/**
 * The history of workspace file `relPath` as the attribution reads it, oldest first: every change
 * the index knows of it, each with the entry that made it (one `EntryRef` object per entry, so
 * equal origins are the same object). A file moved here continues the history of the path it came
 * from, up to the move; a file moved away is deleted at the move. Reads only the entries of the
 * file's changes and, for our agent's turns, the file in their two checkpoints.
 */
export async function fileHistory(
  store: TapeStore,
  index: EditIndex,
  relPath: string,
  readCheckpoint: CheckpointReader,
  signal?: AbortSignal,
): Promise<FileEvent<EntryRef>[]> {
  const origins = new Map<string, EntryRef>();
  const originOf = (sessionId: string, entryId: number, createdAt: number): EntryRef => {
    const key = `${sessionId}\0${entryId}`;
    let ref = origins.get(key);
    if (ref === undefined) origins.set(key, (ref = { sessionId, entryId, createdAt }));
    return ref;
  };
  const events: FileEvent<EntryRef>[] = [];

  const follow = async (path: string, until: IndexedChange | null, moves: number): Promise<void> => {
    let changes = [...index.changesOf(path)].sort(byTapeOrder);
    if (until !== null) changes = changes.slice(0, changes.indexOf(until) + 1);
    // The last move into this path replaced whatever it held: its history starts there.
    let moveIn = changes.length - 1;
    while (moveIn >= 0 && !isMoveInto(changes[moveIn], path)) moveIn--;
    if (moveIn >= 0) {
      const move = changes[moveIn];
      if (move.kind === 'edit' && move.path !== '' && moves < MAX_MOVES) await follow(move.path, move, moves + 1);
      else events.push({ change: { kind: 'delete' }, origin: null });
      changes = changes.slice(moveIn + 1);
    }
    const sides = await checkpointSides(changes, path, readCheckpoint, signal);
    for (const change of changes) {
      signal?.throwIfAborted();
      if (change.kind === 'checkpoint') {
        const side = sides.get(change);
        if (side !== undefined) events.push({ change: side, origin: originOf(change.ref.sessionId, change.turnEntryId, change.ref.createdAt) });
        continue;
      }
      if (change.path !== path) continue;
      const entry = store.getEntry(change.ref.sessionId, change.ref.entryId);
      const edit = entry === undefined ? undefined : editsOfEntry(change.agent, entry)[change.edit];
      if (edit === undefined) continue;
      const origin = originOf(change.ref.sessionId, change.ref.entryId, change.ref.createdAt);
      for (const c of edit.changes) events.push({ change: c, origin });
      if (change.movedTo !== null && change.movedTo !== path && change !== until) events.push({ change: { kind: 'delete' }, origin });
    }
  };
  await follow(relPath, null, 0);
  return events;
}

/**
 * The file in each of a turn's two checkpoints, as `known` changes: the turn start's claims what
 * the turn changed that no call explains (a command's output, say), the turn end's leaves later
 * changes to a person. A turn whose file either checkpoint cannot give (no store, too big) has
 * neither: its calls still count.
 */
async function checkpointSides(
  changes: readonly IndexedChange[],
  path: string,
  readCheckpoint: CheckpointReader,
  signal?: AbortSignal,
): Promise<Map<IndexedChange, FileChange>> {
  const turns = new Map<string, { start?: IndexedChange; end?: IndexedChange }>();
  for (const c of changes) {
    if (c.kind !== 'checkpoint') continue;
    const key = `${c.ref.sessionId}\0${c.turnEntryId}`;
    turns.set(key, { ...turns.get(key), [c.side]: c });
  }
  const sides = new Map<IndexedChange, FileChange>();
  for (const { start, end } of turns.values()) {
    if (start?.kind !== 'checkpoint' || end?.kind !== 'checkpoint') continue;
    signal?.throwIfAborted();
    const before = start.change === 'added' ? '' : await readCheckpoint(start.checkpointId, path);
    const after = end.change === 'deleted' ? null : await readCheckpoint(end.checkpointId, path);
    if (before === null || (after === null && end.change !== 'deleted')) continue;
    sides.set(start, { kind: 'known', content: before, claimUnmatched: true });
    sides.set(end, after === null ? { kind: 'delete' } : { kind: 'known', content: after, claimUnmatched: false });
  }
  return sides;
}
