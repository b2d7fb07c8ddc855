import type { TapeReader } from '../store/lineage';

/**
 * What the inspector reads of a session. The controller hands its views the lineage reader, so a
 * fork shows its parent's entries up to the fork point and its own after them, at the positions of
 * its view; a plain TapeStore fits too (its sessions have no parent), which is what tests use.
 * `origin` is there only on the reader: without it every entry is the session's own.
 */
export type SessionReads = Pick<TapeReader, 'generation' | 'headEntryId' | 'foldRows' | 'getEntry' | 'requireEntry' | 'entries' | 'entriesAfter' | 'search'> &
  Partial<Pick<TapeReader, 'origin'>>;
