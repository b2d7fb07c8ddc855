import { ATTEMPT_EVENT, SESSION_META, VIEW_ASSEMBLED } from '../tape/entryNames';
import * as z from 'zod';
import type { Entry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import { manifestOfEntry } from '../tape/manifest';
import { sessionTitleOf } from '../tape/sessionTitle';
import { sessionAgentOf } from '../store/sessionAgent';
import type { TapeStore } from '../store/tapeStore';
import type { EntryRef } from './editIndex';

/** Who wrote a line: the entry that last wrote it and what the tape says around it. */
export interface LineOrigin {
  sessionId: string;
  /** The edit's tool call (or agent edit event), or our agent's checkpoint for a turn's other changes. */
  entryId: number;
  /** The session's agent: an ingest format name (`claude-code`, `codex`, …) or `agent-tape`. */
  agent: string;
  model: string | null;
  /** The turn within the session, from 1 (the user prompts before the edit); null if none. */
  turn: number | null;
  /** That turn's user prompt, as written (the caller shortens it for display). */
  prompt: string | null;
  /** When the edit was recorded, ISO 8601. */
  at: string;
  sessionTitle: string | null;
  /** The model request whose answer made the edit (its `view/assembled` entry), when recorded. */
  requestEntryId: number | null;
}

/** The rows of a session that say who was asked what, and which model answered. */
interface SessionFacts {
  agent: string;
  title: string | null;
  /** User messages, requests, attempts and `session/meta` events, in entry order. */
  rows: FoldRow[];
}

const modelData = z.looseObject({ model: z.string().min(1) });
const userContent = z.looseObject({ content: z.string() });

function lastWhere(rows: readonly FoldRow[], test: (r: FoldRow) => boolean): FoldRow | undefined {
  for (let i = rows.length - 1; i >= 0; i--) if (test(rows[i])) return rows[i];
  return undefined;
}

const isFact = (r: FoldRow): boolean =>
  (r.kind === 'message' && r.role === 'user') || (r.kind === 'event' && (r.name === VIEW_ASSEMBLED || r.name === ATTEMPT_EVENT || r.name === SESSION_META));

/**
 * What the tape says around an edit, for one blame: each session's facts are read once from its
 * fold rows, and only the handful of entries an origin names (its prompt, its request's model) are
 * read whole.
 */
export class LineOrigins {
  private readonly sessions = new Map<string, SessionFacts>();
  private readonly origins = new Map<EntryRef, LineOrigin>();

  constructor(private readonly store: TapeStore) {}

  originOf(ref: EntryRef): LineOrigin {
    let origin = this.origins.get(ref);
    if (origin === undefined) this.origins.set(ref, (origin = this.read(ref)));
    return origin;
  }

  private read(ref: EntryRef): LineOrigin {
    const facts = this.factsOf(ref.sessionId);
    const before = facts.rows.filter((r) => r.entryId <= ref.entryId);
    // A user message's versions share its id: the turn is the count of distinct prompts so far.
    const prompts = new Map<string, number>();
    for (const r of before) if (r.kind === 'message') prompts.set(r.messageId ?? `#${r.entryId}`, r.entryId);
    const lastPrompt = [...prompts.values()].pop();
    const request = lastWhere(before, (r) => r.name === VIEW_ASSEMBLED && r.entryId < ref.entryId);
    return {
      sessionId: ref.sessionId,
      entryId: ref.entryId,
      agent: facts.agent,
      model: this.modelOf(ref.sessionId, before, request),
      turn: prompts.size === 0 ? null : prompts.size,
      prompt: lastPrompt === undefined ? null : (this.dataOf(ref.sessionId, lastPrompt, userContent, false)?.content ?? null),
      at: new Date(ref.createdAt).toISOString(),
      sessionTitle: facts.title,
      requestEntryId: request?.entryId ?? null,
    };
  }

  /** The nearest attempt's model (an ingested agent's), else the request's (ours), else the session's. */
  private modelOf(sessionId: string, before: readonly FoldRow[], request: FoldRow | undefined): string | null {
    const attempt = lastWhere(before, (r) => r.name === ATTEMPT_EVENT);
    const attempted = attempt === undefined ? null : this.dataOf(sessionId, attempt.entryId, modelData, true);
    if (attempted !== null) return attempted.model;
    const manifest = request === undefined ? undefined : this.store.getEntry(sessionId, request.entryId);
    if (manifest !== undefined) {
      try {
        return manifestOfEntry(manifest).model.id;
      } catch {
        // A manifest that does not read names no model; the session may.
      }
    }
    for (let i = before.length - 1; i >= 0; i--) {
      const meta = before[i].name === SESSION_META ? this.dataOf(sessionId, before[i].entryId, modelData, true) : null;
      if (meta !== null) return meta.model;
    }
    return null;
  }

  private dataOf<T>(sessionId: string, entryId: number, schema: z.ZodType<T>, inData: boolean): T | null {
    const entry: Entry | undefined = this.store.getEntry(sessionId, entryId);
    const parsed = schema.safeParse(inData ? (entry?.payload as { data?: unknown } | undefined)?.data : entry?.payload);
    return parsed.success ? parsed.data : null;
  }

  private factsOf(sessionId: string): SessionFacts {
    let facts = this.sessions.get(sessionId);
    if (facts === undefined)
      this.sessions.set(
        sessionId,
        (facts = {
          agent: sessionAgentOf(this.store, sessionId),
          title: sessionTitleOf(this.store, sessionId),
          rows: this.store.foldRows(sessionId, 0).filter(isFact),
        }),
      );
    return facts;
  }
}
