import type { Entry, JsonObject } from '../../tape/entry';
import { handoffAnchorEntry } from '../../tape/handoffAnchor';
import type { TapeParts } from './tapeParts';

/**
 * The one place a handoff anchor is appended, for the session handle and the tape_handoff tool
 * alike: durably, since the next request (perhaps another program's) starts from it. Returned at
 * its position in the session's view, so in a fork it is numbered on from the parent.
 */
export async function appendHandoff(tape: TapeParts, sessionId: string, name: string, summary: string, state?: JsonObject): Promise<Entry> {
  const { entry } = await tape.store.append(sessionId, handoffAnchorEntry(name, summary, state), { durable: true });
  return tape.reader.requireEntry(sessionId, tape.reader.positionOf(sessionId, entry.entryId));
}
