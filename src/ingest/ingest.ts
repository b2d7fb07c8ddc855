import { SUBAGENT_LINKED, TITLE_EVENT, SESSION_META } from '../tape/entryNames';
import { TapeFileError } from '../store/errors';
import type { TapeStore } from '../store/tapeStore';
import type { JsonObject, NewEntry } from '../tape/entry';
import { entryHash } from '../tape/fork';
import { detectFormat, formatNamed, sourceFormatOfContent, sourceOfPath } from './detect';
import { ingestedSessionStart } from '../tape/ingestedSession';
import { AGENT_LABELS } from './agents';
import {
  countSkip,
  sourceKey,
  type FormatName,
  type Mapped,
  type MappedSession,
  type Transcript,
  type TranscriptFormat,
  type TranscriptMapper,
} from './format';
import type { SourceFormat } from './sourceFormat';
import { isTranscriptName } from './transcriptFiles';
import { readTranscript, type TranscriptCursor } from './transcriptLines';
import { linkTarget, withoutLinkCycles } from './linkCycles';

export interface IngestReport {
  /** The source read: a transcript file, or a whole source (a task folder, a database). */
  file: string;
  /** Null for a file without a complete record yet: there is nothing to tell its format by. */
  format: FormatName | null;
  /** The tape sessions the file maps to (a Claude Code session's subagents are sessions too). */
  sessions: string[];
  /** Entries written by this run; those already on the tape (same provenance key) are not counted. */
  appended: number;
  /** Source lines, or parts of them, that became no entry, by record type. */
  skipped: Record<string, number>;
  /** The file (or a companion) ends in a line still being written; the next run reads it. */
  tornLastLine: boolean;
}

/** One source followed across runs: each run appends what the source gained since the last. */
export interface SourceIngestion {
  readonly file: string;
  ingest(store: TapeStore): Promise<IngestReport>;
}

/** What a followed transcript remembers between runs. */
interface IngestState {
  format: TranscriptFormat;
  mapper: TranscriptMapper;
  /** Where each file (the transcript and its companions) was read to. */
  cursors: Map<string, TranscriptCursor>;
  /** The sessions it wrote to: one deleted from the tape since makes the next run start over. */
  sessions: Set<string>;
}

/**
 * A transcript (with its companions, e.g. subagent files) ingested again each time it grows: each
 * run reads only the bytes its files gained since the last one (from the offset of the last whole
 * line) and feeds them to the format's mapper, which remembers what later lines refer to. A file
 * that shrank or was replaced (another inode) is read from its start again, with a new mapper;
 * what was already on the tape is then dropped by the store's provenance-key dedup. Each session
 * goes in as one `appendMany` (one transaction), opened by a `session/start` that marks it as
 * ingested (src/tape/ingestedSession.ts). `from` names the format the file must be; without it the
 * first records decide. A file of another format, or one safeRead refuses, is a TapeFileError.
 */
export class TranscriptIngest implements SourceIngestion {
  private state: IngestState | null = null;

  constructor(
    readonly file: string,
    private readonly from?: FormatName,
  ) {}

  async ingest(store: TapeStore): Promise<IngestReport> {
    if (this.state !== null && [...this.state.sessions].some((s) => store.headEntryId(s) === 0)) this.state = null;
    try {
      return await this.run(store);
    } catch (e) {
      // Some sessions may be written and others not: the next run reads everything again.
      this.state = null;
      throw e;
    }
  }

  private async run(store: TapeStore): Promise<IngestReport> {
    const { file, from } = this;
    let state = this.state;
    const main = readTranscript(file, state?.cursors.get(file));
    if (main.restarted) state = null;
    const skipped: Record<string, number> = {};
    const report = (format: FormatName | null): IngestReport => ({ file, format, sessions: [], appended: 0, skipped, tornLastLine: main.tornLastLine });
    if (main.invalidLines.length) countSkip(skipped, 'invalid-json', main.invalidLines.length);
    if (state === null) {
      if (main.lines.length === 0) return report(from ?? null);
      const format = detectFormat(main.lines);
      if (format === null)
        throw new TapeFileError(
          file,
          from === undefined
            ? `is not a session file of any agent Agent Tape reads (${Object.values(AGENT_LABELS).join(', ')})`
            : `is not a ${AGENT_LABELS[from]} transcript`,
        );
      if (from !== undefined && format.name !== from) throw new TapeFileError(file, `is a ${AGENT_LABELS[format.name]} transcript, not ${AGENT_LABELS[from]}`);
      state = { format, mapper: format.mapper(file), cursors: new Map(), sessions: new Set() };
    }
    const cursors = new Map(state.cursors).set(file, main.cursor);
    const out = report(state.format.name);
    const companions: Transcript[] = [];
    for (const f of state.format.companions(file)) {
      const t = readTranscript(f, state.cursors.get(f));
      if (t.restarted) {
        this.state = null;
        return this.run(store);
      }
      if (t.invalidLines.length) countSkip(skipped, 'invalid-json', t.invalidLines.length);
      out.tornLastLine ||= t.tornLastLine;
      cursors.set(f, t.cursor);
      companions.push({ file: f, lines: t.lines });
    }
    const mapped = state.mapper.map(main.lines, companions);
    await appendMapped(store, state.format.name, mapped, out);
    for (const s of mapped.sessions) if (s.entries.length > 0) state.sessions.add(s.sessionId);
    this.state = { ...state, cursors };
    return out;
  }
}

/**
 * A source read whole on every run (SourceFormat): what is already on the tape is dropped by the
 * store's provenance-key dedup, so a run appends only what the source gained.
 */
export class SourceIngest implements SourceIngestion {
  constructor(
    readonly file: string,
    private readonly format: SourceFormat,
  ) {}

  async ingest(store: TapeStore): Promise<IngestReport> {
    const out: IngestReport = { file: this.file, format: this.format.name, sessions: [], appended: 0, skipped: {}, tornLastLine: false };
    const mapped = await this.format.read(this.file);
    await appendMapped(store, this.format.name, mapped, out);
    out.tornLastLine = mapped.tornLastLine === true;
    return out;
  }
}

/**
 * Appends each mapped session as one `appendMany` (one transaction), opened by a `session/start`
 * that marks it as ingested when it is new; children before parents, so a parent's link can
 * freeze the head each child has on the tape now. Fills `out` with the sessions, the count of new
 * entries and the skipped records.
 */
async function appendMapped(store: TapeStore, format: FormatName, mapped: Mapped, out: IngestReport): Promise<void> {
  for (const [type, n] of Object.entries(mapped.skipped)) countSkip(out.skipped, type, n);
  out.sessions.push(...mapped.sessions.map((s) => s.sessionId));
  for (const { sessionId, entries } of childrenFirst(withoutLinkCycles(store, mapped.sessions, out.skipped))) {
    if (entries.length === 0) continue;
    // The start is answered by the session's own when it has one: only new sessions get it.
    // At the source's first time: an entry without one (a record the source keeps undated) does not make it the import's.
    const first = entries.reduce(
      (t, e) => (e.createdAt !== undefined && (t === undefined || e.createdAt < t) ? e.createdAt : t),
      undefined as number | undefined,
    );
    const start: NewEntry = { ...ingestedSessionStart(sessionId, format), createdAt: first };
    const results = await store.appendMany(sessionId, [start, ...entries.flatMap((e) => withTitle(sessionId, freezeLink(store, e)))]);
    out.appended += results.slice(1).filter((r) => !r.deduplicated).length;
  }
}

/**
 * A session/meta event followed by the title it names as the session's `session/title`, so lists on
 * the tape title the session as the agent's own rule does (its first-prompt rule, which the Import
 * picker follows too, or the agent's title), not by whatever message came first.
 */
function withTitle(sessionId: string, e: NewEntry): NewEntry[] {
  const title = e.kind === 'event' && e.name === SESSION_META ? (e.payload.data as { title?: unknown } | undefined)?.title : undefined;
  if (typeof title !== 'string' || title.trim() === '') return [e];
  // Keyed by what it says: a later session/meta (a new model) with the same title adds no second one.
  const named: NewEntry = {
    kind: 'event',
    name: TITLE_EVENT,
    provenanceKey: sourceKey(sessionId, TITLE_EVENT, title),
    payload: { name: TITLE_EVENT, data: { title } },
  };
  return [e, e.createdAt === undefined ? named : { ...named, createdAt: e.createdAt }];
}

/**
 * Each session after every session it links, all the way down (the links are acyclic), so a link
 * freezes a child this run has already brought up to date and the next run of an unchanged source
 * freezes the same head: nothing new.
 */
function childrenFirst(sessions: readonly MappedSession[]): MappedSession[] {
  const byId = new Map<string, MappedSession[]>();
  for (const s of sessions) byId.set(s.sessionId, [...(byId.get(s.sessionId) ?? []), s]);
  const ordered: MappedSession[] = [];
  const visited = new Set<MappedSession>();
  // A stack, not recursion: a source may nest subagents deeper than the call stack goes.
  const stack: { session: MappedSession; expanded: boolean }[] = sessions.map((session) => ({ session, expanded: false })).reverse();
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { session, expanded } = top;
    if (expanded) ordered.push(session);
    else if (!visited.has(session)) {
      visited.add(session);
      stack.push({ session, expanded: true });
      for (const e of session.entries)
        for (const child of byId.get(linkTarget(e) ?? '') ?? []) if (!visited.has(child)) stack.push({ session: child, expanded: false });
    }
  }
  return ordered;
}

/**
 * How `file` is ingested: with `from`, as that format (a source format's file stands for its
 * source); without, a path a source format knows by its name goes to it; any other `*.jsonl` (or `*.jsonl.zst`) is
 * read as a Claude Code or Codex transcript (so a followed one is read once, not sniffed first:
 * the CLI and a folder walk tell a copied log of a source format by its first bytes before);
 * any other file goes to the source format that recognizes its first bytes.
 */
export function ingestionOf(file: string, from?: FormatName): SourceIngestion {
  const known = from === undefined ? null : formatNamed(from);
  if (known?.kind === 'source') return new SourceIngest(known.format.sourceOfPath(file) ?? file, known.format);
  if (known?.kind === 'lines') return new TranscriptIngest(file, from);
  const byPath = sourceOfPath(file);
  if (byPath !== null) return new SourceIngest(byPath.source, byPath.format);
  if (isTranscriptName(file)) return new TranscriptIngest(file);
  const byContent = sourceFormatOfContent(file);
  return byContent !== null ? new SourceIngest(file, byContent) : new TranscriptIngest(file);
}

/** Ingests one source once, from its start. */
export const ingestFile = (store: TapeStore, file: string, from?: FormatName): Promise<IngestReport> => ingestionOf(file, from).ingest(store);

/**
 * A mapped `subagent/linked` event with the child's head frozen as the tape has it (SPEC 2.8), so
 * the parent reads the child only that far. The head is part of its provenance key: when a later
 * run finds the child grown, a new link is appended and the last one is in force.
 */
function freezeLink(store: TapeStore, e: NewEntry): NewEntry {
  const child = linkTarget(e);
  const head = child === null ? 0 : store.headEntryId(child);
  if (child === null || head === 0) return e;
  const data = {
    ...(e.payload.data as JsonObject),
    childHeadEntryId: head,
    childHeadHash: entryHash(store.requireEntry(child, head)),
    childStartedAt: store.requireEntry(child, 1).createdAt,
  };
  return { ...e, provenanceKey: `${e.provenanceKey ?? SUBAGENT_LINKED}@${head}`, payload: { ...e.payload, data } };
}
