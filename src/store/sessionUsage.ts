import { ATTEMPT_EVENT } from '../tape/projections/tokenUsage';
import { addStoredAttempts, emptyStoredUsage, ownUsage, rollUpUsage, type SessionUsage, type StoredUsage } from '../tape/usageRollup';
import type { UsageFigures } from '../tape/usageFigures';
import { childrenBySession, type ChildSession } from './forks';
import type { TapeStore } from './tapeStore';

/**
 * What each session's stored attempts add up to, per store and generation, each session read on
 * from where it was read last: the tape is append-only, so the sessions view's redraw after an
 * append reads only the attempts that append added. A new generation (a reload, a deleted session)
 * starts over.
 */
const summed = new WeakMap<TapeStore, { generation: number; bySession: Map<string, { head: number; stored: StoredUsage }> }>();

/** Every session's stored attempts summed (`StoredUsage`), up to its head now. */
function storedUsages(store: TapeStore): Map<string, StoredUsage> {
  let cache = summed.get(store);
  if (cache === undefined || cache.generation !== store.generation()) summed.set(store, (cache = { generation: store.generation(), bySession: new Map() }));
  const result = new Map<string, StoredUsage>();
  for (const { sessionId, headEntryId } of store.sessions()) {
    let s = cache.bySession.get(sessionId);
    if (s === undefined) cache.bySession.set(sessionId, (s = { head: 0, stored: emptyStoredUsage() }));
    if (headEntryId > s.head) {
      addStoredAttempts(s.stored, store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT, fromEntryId: s.head + 1, toEntryId: headEntryId }));
      s.head = headEntryId;
    }
    result.set(sessionId, s.stored);
  }
  return result;
}

/**
 * Every session's own figures and those rolled up over its subagents and forks (src/tape/usageRollup.ts).
 * `family` is the session tree when the caller has it already (the sessions view reads it to nest
 * its rows).
 */
export function sessionUsages(store: TapeStore, family: ReadonlyMap<string, readonly ChildSession[]> = childrenBySession(store)): Map<string, SessionUsage> {
  const stored = storedUsages(store);
  const own = new Map<string, UsageFigures>([...stored].map(([id, s]) => [id, ownUsage(s, (original) => stored.has(original))]));
  return rollUpUsage(own, family);
}
