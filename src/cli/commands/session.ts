import type { TapeReader } from '../../store/lineage';
import type { TapeStore } from '../../store/tapeStore';
import { textOf } from '../../tape/entry';
import { formatOf } from '../../store/tapeFile';
import { UsageError } from '../args';

export function requireSession(store: TapeStore, sessionId: string): void {
  if (store.headEntryId(sessionId) === 0) {
    const known = store.sessions().map((s) => s.sessionId);
    throw new UsageError(`no session ${JSON.stringify(sessionId)} in this tape; sessions: ${known.join(', ') || 'none'}`);
  }
}

export const contentOf = (reader: TapeReader, sessionId: string, entryId: number): string =>
  textOf(reader.requireEntry(sessionId, entryId).payload.content ?? null);

/** A writable SQLite tape: the only kind a turn or a compaction can append to. */
export function requireSqliteTape(command: string, file: string): void {
  if (formatOf(file) !== 'sqlite') throw new UsageError(`${command} writes to *.tape.sqlite files, not ${file}`);
}
