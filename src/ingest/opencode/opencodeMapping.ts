import { ATTEMPT_EVENT } from '../../tape/entryNames';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { oneLine } from '../../tape/oneLine';
import { countSkip, createdAtOf, eventEntry, sessionMetaEntry, sourceKey, subagentLinkEntry, type Mapped, type MappedSession } from '../format';
import { tapeUsage, type UsageBasis } from '../tapeUsage';
import {
  agentPart,
  compactionPart,
  filePart,
  messageInfo,
  partTypeOf,
  patchPart,
  reasoningPart,
  retryPart,
  stepFinishPart,
  subtaskPart,
  textPart,
  toolPart,
  type OcAssistantInfo,
  type OcMessage,
  type OcPart,
  type OcProject,
  type OcTokens,
  type OcUserInfo,
  type OpencodeData,
} from './opencodeRecords';

/**
 * opencode's records as tape sessions, one per opencode session (`opencode:<session id>`), keyed
 * by opencode's own ids so that a run appends only what is new. A user message is its typed text;
 * an assistant message is its text once opencode marks it completed (`time.completed`; it streams
 * into its parts until then), its finished tool parts a tool_call and tool_result pair each (a
 * pending or running one waits for a later run), its reasoning an event kept out of the transcript,
 * and each `step-finish` part one model request (`provider/attempt`): opencode asks the model once
 * per step and writes that step's tokens and cost there, while the message keeps only its last
 * step's tokens. A compaction (a user message with a `compaction` part, answered by the compaction
 * agent's `summary` message) is a compaction anchor; a `task` tool's subagent session is linked
 * from the parent after that call.
 */

export const OPENCODE_SESSION_PREFIX = 'opencode:';
export const tapeSessionIdOf = (opencodeSessionId: string): string => `${OPENCODE_SESSION_PREFIX}${opencodeSessionId}`;

const REASONING_EVENT = 'opencode/reasoning';
const TEXT_EVENT = 'opencode/text';
const FILE_EVENT = 'opencode/file';
const PATCH_EVENT = 'opencode/patch';
const AGENT_EVENT = 'opencode/agent';
const SUBTASK_EVENT = 'opencode/subtask';
const RETRY_EVENT = 'opencode/retry';
const ERROR_EVENT = 'opencode/error';

/** opencode names a session this way until it has written a title for it (Session.isDefaultTitle). */
const DEFAULT_TITLE = /^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A session without a title of opencode's is titled by its first prompt, this long at most. */
const TITLE_CHARS = 200;
export const titleOf = (title: string | undefined): string | undefined => (title === undefined || DEFAULT_TITLE.test(title) ? undefined : title);

/** Only the fields that are set: the tape refuses `undefined` inside a payload. */
function defined(o: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = out.get(k);
    if (list) list.push(t);
    else out.set(k, [t]);
  }
  return out;
}

type Message = { id: string; orderSeq: number; parts: OcPart[] } & ({ role: 'user'; info: OcUserInfo } | { role: 'assistant'; info: OcAssistantInfo });

/** A session's messages that parse, in opencode's order (creation time, then id); the others counted. */
function messagesOf(rows: readonly OcMessage[], parts: ReadonlyMap<string, OcPart[]>, skipped: Record<string, number>): Message[] {
  const parsed = rows.flatMap((m) => {
    const info = messageInfo.safeParse(m.data);
    if (!info.success) {
      const role = (m.data as { role?: unknown } | null)?.role;
      countSkip(skipped, `invalid/message/${typeof role === 'string' ? role : 'unknown'}`);
      return [];
    }
    const ps = [...(parts.get(m.id) ?? [])].sort(byId);
    return [{ id: m.id, created: info.data.time?.created, info: info.data, parts: ps }];
  });
  parsed.sort((a, b) => (a.created ?? 0) - (b.created ?? 0) || byId(a, b));
  // The creation time orders the tape's messages as opencode orders them, and stays put when
  // opencode deletes messages after a revert (positions would shift under later ones).
  let last = 0;
  return parsed.map(({ id, created, info, parts: ps }) => {
    last = created ?? last;
    return info.role === 'user' ? { id, orderSeq: last, parts: ps, role: 'user', info } : { id, orderSeq: last, parts: ps, role: 'assistant', info };
  });
}

const tokenCount = (n: number | undefined): number => n ?? 0;
/** opencode's `tokens`: `input` without the cache's reads and writes, `output` without the reasoning. */
const OPENCODE_BASIS: UsageBasis = { inputHasCacheRead: false, inputHasCacheWrite: false, outputHasReasoning: false };
const usageOf = (t: OcTokens): JsonObject =>
  tapeUsage(
    { input: tokenCount(t.input), output: tokenCount(t.output), cacheRead: t.cache?.read, cacheWrite: t.cache?.write, reasoning: t.reasoning },
    OPENCODE_BASIS,
  );
const hasTokens = (t: OcTokens | undefined): t is OcTokens =>
  t !== undefined && tokenCount(t.input) + tokenCount(t.output) + tokenCount(t.reasoning) + tokenCount(t.cache?.read) + tokenCount(t.cache?.write) > 0;

/** What a data URL holds is the attachment itself (an image, base64): it is left out, its size said. */
const fileRef = (url: string): JsonObject => (url.startsWith('data:') ? { dataUrlChars: url.length } : { url });

class SessionMapping {
  readonly out: NewEntry[] = [];
  private model: { id?: string; provider?: string } = {};
  private readonly linked = new Set<string>();

  constructor(
    readonly sid: string,
    private readonly messages: readonly Message[],
    /** Child session id -> its tape session id, for the children that are mapped. */
    private readonly children: ReadonlyMap<string, string>,
    private readonly skipped: Record<string, number>,
  ) {}

  map(): void {
    for (const m of this.messages) {
      if (m.role === 'user') this.user(m, m.info);
      else this.assistant(m, m.info);
    }
    for (const [childId, childSessionId] of this.children)
      if (!this.linked.has(childId)) this.out.push(subagentLinkEntry(this.sid, childId, { childSessionId }));
  }

  /** The session's model: its last assistant message's. */
  get lastModel(): { id?: string; provider?: string } {
    return this.model;
  }

  private user(m: Message, info: OcUserInfo): void {
    const typed: string[] = [];
    const after: NewEntry[] = [];
    for (const p of m.parts) {
      const type = partTypeOf(p.data);
      const at = info.time?.created;
      if (type === 'text') {
        const t = textPart.safeParse(p.data);
        if (!t.success) countSkip(this.skipped, 'invalid/part/text');
        else if (t.data.synthetic !== true && t.data.ignored !== true) typed.push(t.data.text);
        // What opencode wrote into the prompt (a read file, a note) is not what the person typed.
        else after.push(this.event(TEXT_EVENT, p, defined({ messageId: m.id, text: t.data.text, synthetic: t.data.synthetic, ignored: t.data.ignored }), at));
      } else if (type === 'compaction') {
        // Consumed by the summary message that answers this one (see assistant()).
        if (!compactionPart.safeParse(p.data).success) countSkip(this.skipped, 'invalid/part/compaction');
      } else {
        const e = this.sharedPart(m, p, type, at);
        if (e !== null) after.push(e);
      }
    }
    const content = typed.join('\n\n');
    if (content !== '') {
      this.out.push({
        kind: 'message',
        name: 'message/user',
        provenanceKey: sourceKey(this.sid, 'message', m.id),
        payload: { messageId: m.id, role: 'user', status: 'sent', orderSeq: m.orderSeq, content },
        ...createdAtOf(info.time?.created),
      });
    } else if (m.parts.length === 0) countSkip(this.skipped, 'user/without-parts');
    this.out.push(...after);
  }

  private assistant(m: Message, info: OcAssistantInfo): void {
    if (info.modelID !== undefined) this.model = { id: info.modelID, provider: info.providerID };
    const completed = info.time?.completed !== undefined || info.error !== undefined;
    const texts: string[] = [];
    const after: NewEntry[] = [];
    let steps = 0;
    const at = info.time?.created;
    for (const p of m.parts) {
      const type = partTypeOf(p.data);
      if (type === 'text') {
        const t = textPart.safeParse(p.data);
        if (!t.success) countSkip(this.skipped, 'invalid/part/text');
        else if (t.data.ignored !== true) texts.push(t.data.text);
      } else if (type === 'reasoning') {
        const r = reasoningPart.safeParse(p.data);
        if (!r.success) countSkip(this.skipped, 'invalid/part/reasoning');
        else if (!completed && r.data.time?.end === undefined) countSkip(this.skipped, 'reasoning/streaming');
        else after.push(this.event(REASONING_EVENT, p, { messageId: m.id, text: r.data.text }, r.data.time?.start ?? at));
      } else if (type === 'tool') after.push(...this.tool(m, p));
      else if (type === 'step-finish') {
        const s = stepFinishPart.safeParse(p.data);
        if (!s.success) countSkip(this.skipped, 'invalid/part/step-finish');
        else {
          steps++;
          after.push(this.attempt(p.id, m, info, s.data.tokens, s.data.cost, s.data.reason));
        }
      } else {
        const e = this.sharedPart(m, p, type, at);
        if (e !== null) after.push(e);
      }
    }
    if (!completed) {
      countSkip(this.skipped, 'assistant/in-progress');
      this.out.push(...after);
      return;
    }
    const content = texts.join('\n\n');
    if (info.summary === true) this.compaction(m, info, content);
    else
      this.out.push({
        kind: 'message',
        name: 'message/assistant',
        provenanceKey: sourceKey(this.sid, 'message', m.id),
        payload: { messageId: m.id, role: 'assistant', status: 'sent', orderSeq: m.orderSeq, content },
        ...createdAtOf(at),
      });
    if (info.error !== undefined)
      this.out.push(eventEntry(ERROR_EVENT, sourceKey(this.sid, ERROR_EVENT, m.id), { messageId: m.id, error: info.error }, info.time?.completed ?? at));
    // Versions before step-finish parts kept a request's tokens on its message alone.
    if (steps === 0 && hasTokens(info.tokens)) after.push(this.attempt(m.id, m, info, info.tokens, info.cost, info.finish));
    this.out.push(...after);
  }

  private attempt(key: string, m: Message, info: OcAssistantInfo, tokens: OcTokens, cost: number | undefined, finish: string | undefined): NewEntry {
    const data = defined({
      messageId: m.id,
      model: info.modelID ?? 'unknown',
      provider: info.providerID,
      usage: usageOf(tokens),
      cost,
      finish,
    });
    return eventEntry(ATTEMPT_EVENT, sourceKey(this.sid, ATTEMPT_EVENT, key), data, info.time?.completed ?? info.time?.created);
  }

  /** A finished tool part as its call and its result; the subagent a `task` call ran is linked right after. */
  private tool(m: Message, p: OcPart): NewEntry[] {
    const t = toolPart.safeParse(p.data);
    if (!t.success) {
      countSkip(this.skipped, 'invalid/part/tool');
      return [];
    }
    const { callID, tool: name, state } = t.data;
    if (state.status === 'pending' || state.status === 'running') {
      countSkip(this.skipped, `tool/${state.status}`);
      return [];
    }
    const toolCallId = callID !== '' ? callID : p.id;
    const call: NewEntry = {
      kind: 'tool_call',
      name,
      provenanceKey: sourceKey(this.sid, 'tool_call', m.id, p.id),
      payload: { messageId: m.id, toolCallId, name, input: (state.input ?? {}) as JsonObject[string] },
      ...createdAtOf(state.time?.start),
    };
    const ok = state.status === 'completed';
    const result: NewEntry = {
      kind: 'tool_result',
      name,
      provenanceKey: sourceKey(this.sid, 'tool_result', m.id, p.id),
      payload: defined({ messageId: m.id, toolCallId, status: ok ? 'ok' : 'error', output: (ok ? state.output : state.error) ?? '', title: state.title }),
      ...createdAtOf(state.time?.end),
    };
    const out = [call, result];
    const childId = name === 'task' ? state.metadata?.sessionId : undefined;
    const childSessionId = childId === undefined ? undefined : this.children.get(childId);
    if (childId !== undefined && childSessionId !== undefined && !this.linked.has(childId)) {
      this.linked.add(childId);
      out.push(subagentLinkEntry(this.sid, childId, { childSessionId, toolCallId, messageId: m.id }, state.time?.start));
    }
    return out;
  }

  /**
   * The compaction agent's summary: an anchor standing for the messages before the compaction's
   * user message (its `parentID`), or before the message a newer opencode keeps from
   * (`tail_start_id`). A summary that failed stays its error event.
   */
  private compaction(m: Message, info: OcAssistantInfo, summary: string): void {
    if (info.error !== undefined || summary === '') {
      countSkip(this.skipped, 'compaction/without-summary');
      return;
    }
    const request = this.messages.find((x) => x.id === info.parentID && x.role === 'user');
    const marker = request?.parts.map((p) => compactionPart.safeParse(p.data)).find((c) => c.success)?.data;
    const at = (id: string | undefined): number => (id === undefined ? -1 : this.messages.findIndex((x) => x.id === id));
    const boundary = [at(marker?.tail_start_id), at(request?.id), this.messages.indexOf(m)].find((i) => i !== -1) ?? 0;
    const covered = this.messages.slice(0, boundary).filter((x) => x !== request);
    if (covered.length === 0) {
      countSkip(this.skipped, 'compaction/nothing-before');
      return;
    }
    const anchor = compactionAnchorEntry({
      trigger: marker?.auto === true ? 'auto' : 'manual',
      summary,
      cursorOrderSeq: Math.max(...covered.map((x) => x.orderSeq)),
      sourceEntryIds: [],
      model: { id: info.modelID ?? 'unknown', vendor: info.providerID ?? 'unknown' },
    });
    this.out.push({ ...anchor, provenanceKey: sourceKey(this.sid, 'compaction', m.id), ...createdAtOf(info.time?.created) });
  }

  /** Parts either role may have; null for one that becomes no entry (counted). */
  private sharedPart(m: Message, p: OcPart, type: string | null, at: number | undefined): NewEntry | null {
    const parsed = (schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }): Record<string, unknown> | null => {
      const r = schema.safeParse(p.data);
      if (!r.success) countSkip(this.skipped, `invalid/part/${type}`);
      return r.success ? (r.data as Record<string, unknown>) : null;
    };
    if (type === 'file') {
      const f = parsed(filePart) as { mime: string; filename?: string; url: string; source?: { path?: string } } | null;
      return f && this.event(FILE_EVENT, p, defined({ messageId: m.id, mime: f.mime, filename: f.filename, path: f.source?.path, ...fileRef(f.url) }), at);
    }
    if (type === 'patch') {
      const f = parsed(patchPart) as { hash: string; files: string[] } | null;
      return f && this.event(PATCH_EVENT, p, { messageId: m.id, hash: f.hash, files: f.files }, at);
    }
    if (type === 'agent') {
      const a = parsed(agentPart) as { name: string } | null;
      return a && this.event(AGENT_EVENT, p, { messageId: m.id, name: a.name }, at);
    }
    if (type === 'subtask') {
      const s = parsed(subtaskPart) as { prompt: string; description: string; agent: string; command?: string } | null;
      return (
        s && this.event(SUBTASK_EVENT, p, defined({ messageId: m.id, prompt: s.prompt, description: s.description, agent: s.agent, command: s.command }), at)
      );
    }
    if (type === 'retry') {
      const r = parsed(retryPart) as { attempt: number; error?: unknown; time?: { created?: number } } | null;
      return r && this.event(RETRY_EVENT, p, defined({ messageId: m.id, attempt: r.attempt, error: r.error }), r.time?.created ?? at);
    }
    // Where a step began and snapshots of the worktree carry nothing for the tape; unknown types neither.
    countSkip(this.skipped, type === null ? 'part/without-type' : `part/${type}`);
    return null;
  }

  private event(name: string, p: OcPart, data: JsonObject, at: unknown): NewEntry {
    return eventEntry(name, sourceKey(this.sid, name, p.id), data, at);
  }
}

/** Every session of `data` (each source holds many: opencode keeps all projects' in one database). */
export function mapOpencode(data: OpencodeData, source: string): Mapped {
  const skipped: Record<string, number> = {};
  for (const [type, n] of Object.entries(data.skipped)) countSkip(skipped, type, n);
  const projects = new Map<string, OcProject>(data.projects.map((p) => [p.id, p]));
  const known = new Set(data.sessions.map((s) => s.id));
  const rows: OcMessage[] = [];
  for (const m of data.messages) {
    if (known.has(m.sessionId)) rows.push(m);
    else countSkip(skipped, 'message/without-session');
  }
  const messageRows = groupBy(rows, (m) => m.sessionId);
  const messageIds = new Set(rows.map((m) => m.id));
  const partRows: OcPart[] = [];
  for (const p of data.parts) {
    if (messageIds.has(p.messageId)) partRows.push(p);
    else countSkip(skipped, 'part/without-message');
  }
  const parts = groupBy(partRows, (p) => p.messageId);
  // A session with no message yet is left for a later run; a parent links only children mapped.
  const mapped = new Map(data.sessions.filter((s) => (messageRows.get(s.id)?.length ?? 0) > 0).map((s) => [s.id, s]));
  for (const s of data.sessions) if (!mapped.has(s.id)) countSkip(skipped, 'session/without-messages');
  const sessions: MappedSession[] = [];
  for (const session of mapped.values()) {
    const messages = messagesOf(messageRows.get(session.id) ?? [], parts, skipped);
    const children = new Map([...mapped.values()].filter((c) => c.parentId === session.id).map((c) => [c.id, tapeSessionIdOf(c.id)]));
    const mapping = new SessionMapping(tapeSessionIdOf(session.id), messages, children, skipped);
    mapping.map();
    const worktree = session.projectId === undefined ? undefined : projects.get(session.projectId)?.worktree;
    const lastCwd = [...messages].reverse().find((m) => m.role === 'assistant' && m.info.path?.cwd !== undefined);
    const cwd = session.directory ?? (lastCwd?.role === 'assistant' ? lastCwd.info.path?.cwd : undefined) ?? (worktree !== '/' ? worktree : undefined);
    const firstPrompt = mapping.out.find((e) => e.name === 'message/user')?.payload.content;
    const { id: model, provider } = mapping.lastModel;
    const meta = sessionMetaEntry(
      mapping.sid,
      {
        agent: 'opencode',
        model,
        cwd,
        source,
        title: titleOf(session.title) ?? (typeof firstPrompt === 'string' ? oneLine(firstPrompt, TITLE_CHARS) : undefined),
        parentSessionId: session.parentId !== undefined && mapped.has(session.parentId) ? tapeSessionIdOf(session.parentId) : undefined,
      },
      session.created ?? messages[0]?.orderSeq,
      defined({ provider }),
    );
    sessions.push({ sessionId: mapping.sid, entries: [meta, ...mapping.out] });
  }
  return { sessions, skipped };
}
