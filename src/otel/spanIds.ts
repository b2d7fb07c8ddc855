import { createHash } from 'crypto';

/**
 * Trace and span ids derived from the tape, not drawn at random: exporting a session twice gives
 * the same ids, so a backend that receives both keeps one copy. Parts are hashed as JSON, so no
 * two lists of parts can hash the same text.
 */
function idOf(bytes: number, parts: readonly (string | number)[]): string {
  const hex = createHash('sha256')
    .update(JSON.stringify(parts))
    .digest('hex')
    .slice(0, bytes * 2);
  // An all-zero id is invalid in OTLP; one in 2^64 hashes, but then it must still be a valid id.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace of a session and the subagents below it: 16 bytes as 32 hex digits. */
export const traceIdOf = (rootSessionId: string): string => idOf(16, ['trace', rootSessionId]);

/** A span of a session, named by what it stands for (`turn`, `attempt`, `tool` and its key): 8 bytes as 16 hex digits. */
export const spanIdOf = (sessionId: string, what: string, key: string | number): string => idOf(8, ['span', sessionId, what, key]);
