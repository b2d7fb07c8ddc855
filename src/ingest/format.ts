import type { JsonObject, NewEntry } from '../tape/entry';
import { provenanceKeyOf } from '../tape/provenanceKey';
import type { SourceLine } from './transcriptLines';

export type FormatName = 'claude-code' | 'codex';
export const FORMAT_NAMES: readonly FormatName[] = ['claude-code', 'codex'];

/** The entries of one tape session, in the order they are appended. */
export interface MappedSession {
  sessionId: string;
  entries: NewEntry[];
}

/** A transcript file's lines, with the file it came from (formats read companion files by path). */
export interface Transcript {
  file: string;
  lines: readonly SourceLine[];
}

export interface Mapped {
  sessions: MappedSession[];
  /** Source lines (or parts of them) that became no entry, by record type: nothing is dropped silently. */
  skipped: Record<string, number>;
}

/**
 * One agent's transcript format. A mapper is fed the lines each read of a file adds (all of them
 * on a first read) and remembers what later lines need: the calls results answer, the message a
 * record continues. Provenance keys come from the source's own ids (or line numbers, which stay
 * put while the file only grows), so the store's key dedup makes a run that maps lines again (a
 * new mapper, a re-read file) append nothing that is already there.
 */
export interface TranscriptFormat {
  readonly name: FormatName;
  /** Whether a record, one of the first of a file, is this format's. */
  recognizes(record: unknown): boolean;
  /** Files that belong with `file` and are mapped together with it (Claude Code's subagents). */
  companions(file: string): string[];
  mapper(file: string): TranscriptMapper;
}

export interface TranscriptMapper {
  /**
   * The entries of the lines read since the last call: `main` holds the main file's new lines,
   * `companions` every companion file with its new lines (none when it has not grown).
   */
  map(main: readonly SourceLine[], companions: readonly Transcript[]): Mapped;
}

/**
 * A record naming a session other than its file's is skipped under this type: a transcript's
 * records land in the session of the file they come from and nowhere else.
 */
export const otherSession = (type: string): string => `other-session/${type}`;

/** The session id a file name ends with (`<uuid>.jsonl`, as both agents name their transcripts), or null. */
export const uuidOfName = (name: string): string | null => /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(name)?.[1] ?? null;

export const countSkip = (skipped: Record<string, number>, type: string, n = 1): void => {
  // The type comes from the file: `constructor` or `__proto__` is a count like any other, not
  // what every object inherits (read, it gave "function Object() {…}1"; set, it was lost).
  const count = (Object.hasOwn(skipped, type) ? skipped[type] : 0) + n;
  Object.defineProperty(skipped, type, { value: count, enumerable: true, writable: true, configurable: true });
};

/** Provenance key parts led by the session id, as the agent's own entries are keyed. */
export const sourceKey = (sessionId: string, ...parts: (string | number)[]): string => provenanceKeyOf(sessionId, ...parts);

/** The source's ISO timestamp as the entry's `createdAt`, so the tape shows when things happened. */
export function createdAtOf(timestamp: unknown): { createdAt?: number } {
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isFinite(ms) && ms >= 0 ? { createdAt: ms } : {};
}

export function eventEntry(name: string, provenanceKey: string, data: JsonObject, timestamp?: unknown): NewEntry {
  return { kind: 'event', name, provenanceKey, payload: { name, data }, ...createdAtOf(timestamp) };
}
