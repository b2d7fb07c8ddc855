import { isIngestedSession } from '../tape/ingestedSession';
import { agentOf } from '../tape/usage/usageStats';
import type { TapeStore } from './tapeStore';

/** The first entries tell an ingested session: its `session/start`, or on older tapes the provenance keys after it. */
const FIRST_ENTRIES = 8;

/**
 * Agents found so far, per store and generation: once a session has its first entries its agent
 * never changes (the tape is append-only), so the sessions view's redraws read each session once.
 */
const known = new WeakMap<TapeStore, { generation: number; bySession: Map<string, string> }>();

/** Which agent's work a session of the tape is (`agentOf`: its ingest format, else `agent-tape`). */
export function sessionAgentOf(store: TapeStore, sessionId: string): string {
  let cache = known.get(store);
  if (cache === undefined || cache.generation !== store.generation()) known.set(store, (cache = { generation: store.generation(), bySession: new Map() }));
  const cached = cache.bySession.get(sessionId);
  if (cached !== undefined) return cached;
  const first = store.entries(sessionId, { limit: FIRST_ENTRIES });
  const start = first[0];
  const ingested = isIngestedSession(
    sessionId,
    start,
    first.map((e) => e.provenanceKey),
  );
  const agent = agentOf({ sessionId, start, ingested });
  // A session still shorter than that may yet show an ingest's keys.
  if (ingested || first.length === FIRST_ENTRIES) cache.bySession.set(sessionId, agent);
  return agent;
}
