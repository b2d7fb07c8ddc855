import * as z from 'zod';
import { TapeFileError } from '../../store/errors';
import { countSkip, otherSession } from '../format';
import { readSourceBytes, readSourceHead, readSourceJson } from '../sourceFiles';
import { parseTranscript } from '../transcriptLines';

/**
 * A Gemini CLI chat recording as its file holds it now (gemini-cli's chatRecordingService). Up to
 * v0.38 a `.json` file rewritten whole: a ConversationRecord `{sessionId, projectHash, startTime,
 * lastUpdated, messages, summary?, directories?, kind?}`. From v0.39 a `.jsonl` log: the metadata
 * first, then each message whenever it changes (the same id again: tokens, tool calls), `{$set}`
 * metadata updates (from v0.44 a `messages` one is a checkpoint that rebuilds the list from the
 * history) and `{$rewindTo: id}`, which takes back that message and all after it.
 */

const count = z.number().nonnegative().optional();
const tokens = z.looseObject({ input: count, output: count, cached: count, thoughts: count, tool: count, total: count });
export const toolCallRecord = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  status: z.string().optional(),
  timestamp: z.string().optional(),
  agentId: z.string().min(1).optional(),
  resultDisplay: z.unknown().optional(),
});
export type ToolCallRecord = z.infer<typeof toolCallRecord>;
export const thoughtRecord = z.looseObject({ subject: z.string().optional(), description: z.string().optional(), timestamp: z.string().optional() });
const messageRecord = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  timestamp: z.string().optional(),
  content: z.unknown().optional(),
  displayContent: z.unknown().optional(),
  toolCalls: z.array(z.unknown()).optional(),
  thoughts: z.array(z.unknown()).optional(),
  tokens: tokens.nullable().optional(),
  model: z.string().optional(),
});
export type MessageRecord = z.infer<typeof messageRecord>;
const metadata = z.looseObject({
  sessionId: z.string().optional(),
  projectHash: z.string().optional(),
  startTime: z.string().optional(),
  summary: z.string().optional(),
  directories: z.array(z.string()).optional(),
  kind: z.string().optional(),
  messages: z.array(z.unknown()).optional(),
});
type Metadata = z.infer<typeof metadata>;

/** A session id this code puts in a tape session id: Gemini CLI's are UUIDs (subagents' short base-36 ones). */
const SESSION_ID = /^[A-Za-z0-9_.-]{1,200}$/;

export interface RecordedMessage {
  /** The message as it was last written. */
  record: MessageRecord;
  /**
   * First written by a `$set` checkpoint, not as a message of its own: a turn Gemini CLI put back
   * into its history (a compression's summary and acknowledgement, the turns it kept), not said now.
   */
  reseeded: boolean;
}

export interface Recording {
  /** The session id the file records (its first metadata's), or null when it names none usable. */
  sessionId: string | null;
  projectHash?: string;
  startTime?: string;
  /** Gemini CLI's one-line summary of the session (v0.20+). */
  summary?: string;
  /** The workspace directories: a subagent's from its start, a session's after `/dir add`. */
  directories?: string[];
  /** 'subagent' for a subagent's recording (v0.31+). */
  kind?: string;
  /** A log's last line is still being written: left for the next run. */
  tornLastLine?: boolean;
  /** Every message the file has held, in the order each first appeared. */
  messages: RecordedMessage[];
  /** The ids of the messages a rewind took back and nothing brought back since. */
  rewound: string[];
}

class RecordingBuilder {
  /** Whether any record of a recording was seen: a file of none is not one. */
  seen = false;
  private readonly rec: Omit<Recording, 'rewound'> = { sessionId: null, messages: [] };
  private readonly byId = new Map<string, RecordedMessage>();
  /** Ids in the order Gemini CLI has them now: a rewind cuts this list, a checkpoint sets it. */
  private live: string[] = [];
  private liveIds = new Set<string>();
  private readonly rewound = new Set<string>();
  private metaSeen = false;

  constructor(private readonly skipped: Record<string, number>) {}

  recording(): Recording {
    return { ...this.rec, rewound: [...this.rewound] };
  }

  /** Takes a message in; true when it is one. */
  message(raw: unknown, reseeded: boolean): boolean {
    this.seen = true;
    const m = messageRecord.safeParse(raw);
    if (!m.success) {
      countSkip(this.skipped, 'invalid/message');
      return false;
    }
    const known = this.byId.get(m.data.id);
    // A checkpoint writes back a message already said stripped (v0.61: no tokens, no tool calls,
    // the time of the checkpoint), or another under its id: what the message's own line said stands.
    if (known !== undefined) {
      if (!reseeded || known.reseeded) known.record = m.data;
    } else {
      const recorded = { record: m.data, reseeded };
      this.byId.set(m.data.id, recorded);
      this.rec.messages.push(recorded);
    }
    // Written again after a rewind (or a checkpoint that left it out), it is back.
    this.rewound.delete(m.data.id);
    if (!this.liveIds.has(m.data.id)) {
      this.liveIds.add(m.data.id);
      this.live.push(m.data.id);
    }
    return true;
  }

  rewind(id: string): void {
    this.seen = true;
    const at = this.live.indexOf(id);
    // An id it does not have empties the list, as Gemini CLI's own reading does.
    for (const cut of this.live.splice(at === -1 ? 0 : at)) {
      this.liveIds.delete(cut);
      this.rewound.add(cut);
    }
  }

  metadata(m: Metadata, update: boolean): void {
    this.seen = true;
    if (m.sessionId !== undefined) {
      if (!this.metaSeen && !update) {
        if (SESSION_ID.test(m.sessionId)) this.rec.sessionId = m.sessionId;
        else countSkip(this.skipped, 'invalid/sessionId');
      } else if (m.sessionId !== this.rec.sessionId) {
        // A record naming another session says nothing about this one.
        countSkip(this.skipped, otherSession(update ? '$set' : 'metadata'));
        return;
      }
    }
    if (!update) this.metaSeen = true;
    if (m.projectHash !== undefined) this.rec.projectHash ??= m.projectHash;
    if (m.startTime !== undefined) this.rec.startTime ??= m.startTime;
    if (m.summary !== undefined) this.rec.summary = m.summary;
    if (m.directories !== undefined) this.rec.directories = m.directories;
    if (m.kind !== undefined) this.rec.kind = m.kind;
    if (m.messages === undefined) return;
    // A checkpoint rebuilds the list from Gemini CLI's history: a message it leaves out was
    // compressed away or rolled back, which is history too, so it stays on the tape; only what a
    // later rewind cuts is taken back.
    const ids: string[] = [];
    for (const msg of m.messages) if (this.message(msg, update)) ids.push((msg as { id: string }).id);
    if (update) {
      this.liveIds = new Set(ids);
      this.live = [...this.liveIds];
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One JSONL record, told apart as gemini-cli's loadConversationRecord tells them. */
function replayLine(b: RecordingBuilder, record: unknown, skipped: Record<string, number>): void {
  if (!isObject(record)) countSkip(skipped, 'invalid/record');
  else if (typeof record.$rewindTo === 'string') b.rewind(record.$rewindTo);
  else if (typeof record.id === 'string') b.message(record, false);
  else if (isObject(record.$set)) {
    const m = metadata.safeParse(record.$set);
    if (m.success) b.metadata(m.data, true);
    else countSkip(skipped, 'invalid/$set');
  } else if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
    const m = metadata.safeParse(record);
    if (m.success) b.metadata(m.data, false);
    else countSkip(skipped, 'invalid/metadata');
  } else countSkip(skipped, 'unknown-record');
}

/** Whether a file's first line is a whole JSON object (a JSONL log) rather than the start of one document. */
function opensWithRecord(head: Buffer): boolean {
  const firstLine = head.toString('utf8').split('\n', 1)[0].trim();
  try {
    return isObject(JSON.parse(firstLine));
  } catch {
    return false;
  }
}

/**
 * A recording file's content. `.jsonl` (and any file opening with a whole record on its first line)
 * is a log: a line not JSON is counted as `invalid-json`, a last line still being written is left
 * for the next run. Anything else is one JSON document. A file that is neither, or is no Gemini
 * CLI recording, is a TapeFileError naming it.
 */
export function readRecording(file: string, skipped: Record<string, number>): Recording {
  const head = file.endsWith('.jsonl') ? null : readSourceHead(file);
  if (head === null || opensWithRecord(head)) {
    const { lines, invalidLines, tornLastLine } = parseTranscript(readSourceBytes(file));
    if (invalidLines.length) countSkip(skipped, 'invalid-json', invalidLines.length);
    const rec = recordingOfLines(
      lines.map((l) => l.record),
      skipped,
    );
    if (rec === null) throw new TapeFileError(file, 'is not a Gemini CLI chat recording: no line is its metadata or a message');
    return tornLastLine ? { ...rec, tornLastLine } : rec;
  }
  const doc = readSourceJson(file);
  const m = metadata.safeParse(doc);
  if (!m.success || !isObject(doc) || (m.data.sessionId === undefined && m.data.messages === undefined))
    throw new TapeFileError(file, 'is not a Gemini CLI chat recording (a JSON object with its sessionId and messages)');
  const b = new RecordingBuilder(skipped);
  b.metadata(m.data, false);
  return b.recording();
}

/** A JSONL recording's records replayed; null when none of them is a recording's (an empty file's records are none, and a recording). */
export function recordingOfLines(records: readonly unknown[], skipped: Record<string, number>): Recording | null {
  const b = new RecordingBuilder(skipped);
  for (const record of records) replayLine(b, record, skipped);
  return records.length > 0 && !b.seen ? null : b.recording();
}
