import type { TapeStore } from '../../store/tapeStore';
import { textOf, type Entry } from '../../tape/entry';
import { UsageError } from '../args';

export function requireSession(store: TapeStore, sessionId: string): void {
  if (store.headEntryId(sessionId) === 0) {
    const known = store.sessions().map((s) => s.sessionId);
    throw new UsageError(`no session ${JSON.stringify(sessionId)} in this tape; sessions: ${known.join(', ') || 'none'}`);
  }
}

export function entryOrThrow(store: TapeStore, sessionId: string, entryId: number): Entry {
  const e = store.getEntry(sessionId, entryId);
  if (!e) throw new Error(`entry ${sessionId}#${entryId} is missing`);
  return e;
}

export const contentOf = (store: TapeStore, sessionId: string, entryId: number): string =>
  textOf(entryOrThrow(store, sessionId, entryId).payload.content ?? null);
