import { provenanceKeyOf } from '../agent/turnEntries';
import type { JsonObject, NewEntry } from '../tape/entry';
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
 * One agent's transcript format. `map` is pure and sees the whole file each run: provenance keys
 * come from the source's own ids (or line numbers, which stay put while the file only grows), so
 * the store's key dedup is what makes a re-ingest append nothing and a grown file only its news.
 */
export interface TranscriptFormat {
  readonly name: FormatName;
  /** Whether a record, one of the first of a file, is this format's. */
  recognizes(record: unknown): boolean;
  /** Files that belong with `file` and are mapped together with it (Claude Code's subagents). */
  companions(file: string): string[];
  map(main: Transcript, companions: readonly Transcript[]): Mapped;
}

export const countSkip = (skipped: Record<string, number>, type: string, n = 1): void => {
  skipped[type] = (skipped[type] ?? 0) + n;
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
