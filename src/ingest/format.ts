import { SESSION_META, SUBAGENT_LINKED } from '../tape/entryNames';
import type { JsonObject, NewEntry } from '../tape/entry';
import { provenanceKeyOf } from '../tape/provenanceKey';
import type { SourceLine } from './transcriptLines';

/** An agent's format, as `--from` and session/meta name it; each has its line in the registry (agents.ts). */
export type FormatName = 'claude-code' | 'codex' | 'vscode-chat' | 'gemini' | 'cline' | 'roo' | 'kilo' | 'opencode' | 'copilot-cli' | 'otlp';

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
  /** A source format's log ends in a line still being written: left for the next run (IngestReport.tornLastLine). */
  tornLastLine?: boolean;
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

/** The session id a file name ends with (`<uuid>.jsonl`, as both agents name their transcripts; `<uuid>.jsonl.zst` compressed), or null. */
export const uuidOfName = (name: string): string | null =>
  /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i.exec(name)?.[1] ?? null;

export const countSkip = (skipped: Record<string, number>, type: string, n = 1): void => {
  // The type comes from the file: `constructor` or `__proto__` is a count like any other, not
  // what every object inherits (read, it gave "function Object() {…}1"; set, it was lost).
  const count = (Object.hasOwn(skipped, type) ? skipped[type] : 0) + n;
  Object.defineProperty(skipped, type, { value: count, enumerable: true, writable: true, configurable: true });
};

/** Provenance key parts led by the session id, as the agent's own entries are keyed. */
export const sourceKey = (sessionId: string, ...parts: (string | number)[]): string => provenanceKeyOf(sessionId, ...parts);

/**
 * The source's time (an ISO string, or milliseconds since the epoch as VS Code, Cline and opencode
 * write it) as the entry's `createdAt`, so the tape shows when things happened.
 */
export function createdAtOf(timestamp: unknown): { createdAt?: number } {
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : typeof timestamp === 'number' ? timestamp : NaN;
  return Number.isFinite(ms) && ms >= 0 ? { createdAt: ms } : {};
}

export interface SessionMeta {
  agent: FormatName;
  /** The model the source names for the session (its last one), when it names one. */
  model?: string;
  /** The working directory the agent ran in, when the source records it. */
  cwd?: string;
  /** The file (or folder, or database) the session was read from. */
  source: string;
  /** The session's title or first prompt when the source has one. */
  title?: string;
  /** The parent session (a subagent's, a subtask's), as a tape session id. */
  parentSessionId?: string;
}

/**
 * A `session/meta` event keyed once per session: a later model or title is a new event (the key
 * holds what it says), the last one in force.
 */
export function sessionMetaEntry(sessionId: string, meta: SessionMeta, timestamp?: unknown, extra: JsonObject = {}): NewEntry {
  const data: JsonObject = { ...extra };
  for (const [k, v] of Object.entries(meta)) if (v !== undefined) data[k] = v as string;
  return eventEntry(SESSION_META, sourceKey(sessionId, SESSION_META, meta.model ?? '', meta.title ?? ''), data, timestamp);
}

/**
 * A parent session's link to a subagent's (or subtask's) session, keyed by the child's id in the
 * source: the ingest appends children first and freezes the head each has (ingest.ts freezeLink).
 * `data` may add the spawning call (`toolCallId`, `messageId`) and what the source says of the child.
 */
export function subagentLinkEntry(parentSessionId: string, childId: string, data: { childSessionId: string } & JsonObject, timestamp?: unknown): NewEntry {
  return eventEntry(SUBAGENT_LINKED, sourceKey(parentSessionId, SUBAGENT_LINKED, childId), data, timestamp);
}

export function eventEntry(name: string, provenanceKey: string, data: JsonObject, timestamp?: unknown): NewEntry {
  return { kind: 'event', name, provenanceKey, payload: { name, data }, ...createdAtOf(timestamp) };
}
