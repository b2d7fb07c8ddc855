/**
 * The provenance keys of crash repair's results (toolPairs.ts interruptedResultEntry) start with
 * this; the fold and the store tell such results by it. Apart from toolPairs.ts, which reads the
 * fold's types: the fold needs only this.
 */
export const INTERRUPTED = 'interrupted';
export const INTERRUPTED_KEY_PREFIX = `${INTERRUPTED}/`;

export const isInterruptedResultKey = (key: string | null): boolean => key !== null && key.startsWith(INTERRUPTED_KEY_PREFIX);
