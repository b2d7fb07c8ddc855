import { BACKFILLED_EVENT } from '../tape/entryNames';
import type { TapeStore } from '../store/tapeStore';
import type { NewEntry } from '../tape/entry';
import { namedProvenanceKey } from '../tape/provenanceKey';
import { messageEntry } from '../tape/turnEntries';

/** One exchange as a host's own history kept it (a chat view's request and the text of its response). */
export interface HistoryTurn {
  prompt: string;
  response: string;
}

/**
 * Rebuilds a session the host knows but the tape does not (its storage was cleared, or the chat
 * came from another machine) from the host's history, so the next request has its past. It only
 * ever creates a session: a session already on the tape is left alone, which makes it run once.
 * All entries go in one transaction with provenance keys, and a `session/backfilled` event marks
 * the session as rebuilt from a host's history rather than recorded as it happened.
 * Returns the number of turns written (0 when the session existed or there was nothing to write).
 */
export async function backfillSession(store: TapeStore, sessionId: string, turns: readonly HistoryTurn[], source: string): Promise<number> {
  if (turns.length === 0 || store.headEntryId(sessionId) > 0) return 0;
  const entries: NewEntry[] = [];
  turns.forEach((t, i) => {
    const turn = { sessionId, turnId: `backfill-${i + 1}` };
    entries.push(messageEntry(turn, { messageId: `${turn.turnId}/user`, role: 'user', orderSeq: 2 * i + 1, content: t.prompt, status: 'sent' }));
    if (t.response !== '')
      entries.push(messageEntry(turn, { messageId: `${turn.turnId}/assistant`, role: 'assistant', orderSeq: 2 * i + 2, content: t.response, status: 'sent' }));
  });
  entries.push({
    kind: 'event',
    name: BACKFILLED_EVENT,
    provenanceKey: namedProvenanceKey(BACKFILLED_EVENT, sessionId),
    payload: { name: BACKFILLED_EVENT, data: { source, turns: turns.length } },
  });
  await store.appendMany(sessionId, entries, { durable: true });
  return turns.length;
}
