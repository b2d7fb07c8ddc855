import type { Entry } from '../entry';
import { addUsage, NO_USAGE, type UsageFigures } from './usageFigures';
import { attemptUsage, copiedFrom } from './usageStats';

/**
 * A session's model requests and tokens, its own and rolled up over its subagents and forks (issue
 * 22). Each `provider/attempt` counts once, in the session that stored it first: a fork's inherited
 * entries are its parent's rows (never its own), and a merged fork's copies in its parent are the
 * fork's, so they count in the fork (and through it in the parent's roll-up), unless the fork is no
 * longer on the tape, when the copies are the only record and count in the parent.
 */

/** A session's stored attempts, summed apart by where each was stored first; extended as the session grows. */
export interface StoredUsage {
  /** Attempts first stored in this session. */
  direct: UsageFigures;
  /** Merged copies, by the session that stores their originals. */
  copies: Map<string, UsageFigures>;
}

export const emptyStoredUsage = (): StoredUsage => ({ direct: NO_USAGE, copies: new Map() });

/** Adds a session's stored entries (any kind: only `provider/attempt`s count) to what was summed of it before. */
export function addStoredAttempts(into: StoredUsage, entries: readonly Entry[]): void {
  for (const e of entries) {
    const usage = attemptUsage(e);
    if (usage === null) continue;
    const original = copiedFrom(e);
    if (original === null) into.direct = addUsage(into.direct, usage);
    else into.copies.set(original, addUsage(into.copies.get(original) ?? NO_USAGE, usage));
  }
}

/** A session's own figures: what it stored first, and the copies whose original is no longer on the tape. */
export function ownUsage(stored: StoredUsage, onTape: (sessionId: string) => boolean): UsageFigures {
  let own = stored.direct;
  for (const [original, copies] of stored.copies) if (!onTape(original)) own = addUsage(own, copies);
  return own;
}

export interface SessionUsage {
  own: UsageFigures;
  /** Its own and those of every session below it (subagents, forks, theirs), each session once. */
  rolledUp: UsageFigures;
  /** Sessions below it that have figures (on the tape). */
  descendants: number;
}

type Children = ReadonlyMap<string, readonly { sessionId: string }[]>;

/** The sessions reachable below `sessionId` in the session tree, each once (a loop on a damaged tape ends where it closes). */
export function sessionsBelow(sessionId: string, children: Children): string[] {
  const seen = new Set([sessionId]);
  const stack = [sessionId];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop() as string) ?? []) {
      if (seen.has(child.sessionId)) continue;
      seen.add(child.sessionId);
      stack.push(child.sessionId);
    }
  }
  seen.delete(sessionId);
  return [...seen];
}

/**
 * Every session's own and rolled-up figures. `children` is the session tree (src/store/forks.ts
 * childrenBySession); a child with no figures (not on the tape) adds nothing, its children still
 * count. Each session's roll-up sums the sessions reachable below it, each once, so a damaged tape
 * whose parents loop still counts every attempt once per roll-up.
 */
export function rollUpUsage(own: ReadonlyMap<string, UsageFigures>, children: Children): Map<string, SessionUsage> {
  const result = new Map<string, SessionUsage>();
  for (const [sessionId, figures] of own) {
    const below = sessionsBelow(sessionId, children).flatMap((id) => own.get(id) ?? []);
    result.set(sessionId, { own: figures, rolledUp: below.reduce(addUsage, figures), descendants: below.length });
  }
  return result;
}
