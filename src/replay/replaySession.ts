import type { SessionSummary } from '../store/queries';

/**
 * The session a replay reads: the one asked for, else the tape's only or most recently written
 * one. Throws with the sessions there are when the one asked for is not on the tape.
 */
export function chooseSession(sessions: readonly SessionSummary[], requested: string | undefined): string {
  if (sessions.length === 0) throw new Error('the tape has no sessions to replay');
  if (requested !== undefined) {
    if (sessions.some((s) => s.sessionId === requested)) return requested;
    const known = sessions
      .slice(0, 10)
      .map((s) => JSON.stringify(s.sessionId))
      .join(', ');
    throw new Error(`the tape has no session ${JSON.stringify(requested)}; it has ${known}${sessions.length > 10 ? `, and ${sessions.length - 10} more` : ''}`);
  }
  return sessions.reduce((latest, s) => (s.lastCreatedAt > latest.lastCreatedAt ? s : latest)).sessionId;
}
