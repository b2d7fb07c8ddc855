import { ATTEMPT_EVENT } from '../tape/entryNames';

import { addStoredAttempts, emptyStoredUsage, ownUsage, rollUpUsage, sessionsBelow, type SessionUsage, type StoredUsage } from '../tape/usage/usageRollup';
import type { UsageFigures } from '../tape/usage/usageFigures';
import type { ChildSession } from './forks';
import type { TapeStore } from './tapeStore';

/**
 * What each session's stored attempts add up to, per store and generation, each session read on
 * from where it was read last: the tape is append-only, so a redraw after an append reads only the
 * attempts that append added. A new generation (a reload, a deleted session) starts over.
 */
const summed = new WeakMap<TapeStore, { generation: number; bySession: Map<string, { head: number; stored: StoredUsage }> }>();

/** A session's stored attempts summed up to its head now; null for a session not on the tape. */
function storedUsageOf(store: TapeStore, sessionId: string): StoredUsage | null {
  let cache = summed.get(store);
  if (cache === undefined || cache.generation !== store.generation()) summed.set(store, (cache = { generation: store.generation(), bySession: new Map() }));
  const head = store.headEntryId(sessionId);
  if (head === 0) return null;
  let s = cache.bySession.get(sessionId);
  if (s === undefined) cache.bySession.set(sessionId, (s = { head: 0, stored: emptyStoredUsage() }));
  if (head > s.head) {
    addStoredAttempts(s.stored, store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT, fromEntryId: s.head + 1, toEntryId: head }));
    s.head = head;
  }
  return s.stored;
}

/**
 * The own figures of each of `sessionIds` and those rolled up over its subagents and forks
 * (src/tape/usage/usageRollup.ts) through the session tree `family` (src/store/forks.ts
 * childrenBySession, which the callers read anyway); only those sessions and the ones below them
 * are read. A session not on the tape has no entry.
 */
export function sessionUsages(store: TapeStore, family: ReadonlyMap<string, readonly ChildSession[]>, sessionIds: Iterable<string>): Map<string, SessionUsage> {
  const wanted = [...sessionIds];
  const onTape = (sessionId: string): boolean => store.headEntryId(sessionId) > 0;
  const own = new Map<string, UsageFigures>();
  for (const id of new Set(wanted.flatMap((id) => [id, ...sessionsBelow(id, family)]))) {
    const stored = storedUsageOf(store, id);
    if (stored !== null) own.set(id, ownUsage(stored, onTape));
  }
  const rolled = rollUpUsage(own, family);
  const result = new Map<string, SessionUsage>();
  for (const id of wanted) {
    const usage = rolled.get(id);
    if (usage !== undefined) result.set(id, usage);
  }
  return result;
}
