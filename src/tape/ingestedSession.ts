import { BOOTSTRAP_KEY, SESSION_START } from './entryNames';
import { type Entry, type NewEntry } from './entry';
import { provenanceKeyOf } from './provenanceKey';

/**
 * A session ingested from another agent's transcript (src/ingest) mirrors a source that is the
 * truth: nothing but the source may add to it. Its `session/start` anchor says where it comes from
 * (`state.ingestedFrom`, the format's name); sessions ingested before that was written are told by
 * their provenance keys, which all start with the session id (src/ingest/format.ts sourceKey),
 * where the agent's own keys start with the entry's kind (src/tape/turnEntries.ts).
 */

/** The `session/start` an ingest opens a session with. */
export const ingestedSessionStart = (sessionId: string, format: string): NewEntry => ({
  kind: 'anchor',
  name: SESSION_START,
  provenanceKey: BOOTSTRAP_KEY,
  payload: { name: SESSION_START, state: { sessionId, ingestedFrom: format } },
});

/** The start of every provenance key an ingest writes into `sessionId`. */
export const ingestedKeyPrefix = (sessionId: string): string => `${provenanceKeyOf(sessionId)}/`;

/** Whether a session is an ingested one, from its `session/start` and provenance keys of its entries. */
export function isIngestedSession(sessionId: string, start: Entry | undefined, keys: readonly (string | null)[]): boolean {
  const state = start?.payload.state;
  if (typeof state === 'object' && state !== null && typeof (state as { ingestedFrom?: unknown }).ingestedFrom === 'string') return true;
  const prefix = ingestedKeyPrefix(sessionId);
  return keys.some((k) => k !== null && k.startsWith(prefix));
}
