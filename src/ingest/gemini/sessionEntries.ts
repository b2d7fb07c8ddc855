import { RETRACTED_EVENT, ATTEMPT_EVENT } from '../../tape/entryNames';
import { sha256Hex } from '../../tape/canonicalJson';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import { type JsonObject, type NewEntry } from '../../tape/entry';
import { promptLine } from '../agentDiscovery';
import { countSkip, createdAtOf, eventEntry, sessionMetaEntry, sourceKey, subagentLinkEntry } from '../format';
import { tapeUsage, type UsageBasis } from '../tapeUsage';
import { functionResponsesOf, nonTextKindOf, partsOf, textOf, thoughtPartsOf, toolOutputOf, type Part } from './parts';
import { thoughtRecord, toolCallRecord, type MessageRecord, type Recording, type ToolCallRecord } from './recording';

/**
 * A Gemini CLI recording as the entries of one tape session: user prompts and model answers as
 * messages, each tool call with its result, thoughts, notices and token counts as events.
 */

const THOUGHT_EVENT = 'gemini/thought';
const CONTEXT_EVENT = 'gemini/context';
const HISTORY_EVENT = 'gemini/history';

/** How the summary a compression puts first in the history opens (chatCompressionService). */
const SNAPSHOT = '<state_snapshot>';

/** User turns Gemini CLI writes itself: the session's opening context and hooks' additions. */
const INJECTED = ['<session_context>', '<hook_context>'];
/** What Gemini CLI's own session list passes over as a first prompt: commands and injected context. */
const isPromptText = (text: string): boolean => {
  const t = text.trim();
  return t !== '' && !t.startsWith('/') && !t.startsWith('?') && !INJECTED.some((tag) => t.startsWith(tag));
};

const NOTICE_TYPES = new Set(['info', 'error', 'warning']);

export interface SubagentSession {
  sessionId: string;
  /** The id the spawning tool call records (`agentId`, v0.39+): the child's own session id. */
  agentId: string | null;
  /** When it started: a link no spawning call places is dated by it. */
  startTime?: string;
}

export interface SessionToMap {
  sessionId: string;
  recording: Recording;
  source: string;
  cwd?: string;
  parentSessionId?: string;
  children: readonly SubagentSession[];
}

/** A revision of a message has the key of its text: one that grows (or is rewritten) is a new revision the fold prefers. */
const revisionOf = (text: string): string => sha256Hex(text).slice(0, 16);

/** A tool call's result status; null while it has none yet (it is still validating, scheduled, executing). */
function resultStatusOf(call: ToolCallRecord): 'ok' | 'error' | null {
  if (call.status === 'success') return 'ok';
  if (call.status === 'error' || call.status === 'cancelled') return 'error';
  return call.status === undefined && call.result !== undefined && call.result !== null ? 'ok' : null;
}

/** What the person first asked in a session (before any command or injected context). */
export function firstPromptOf(rec: Recording): string | undefined {
  for (const { record: m, reseeded } of rec.messages) {
    if (m.type !== 'user' || reseeded || rec.rewound.includes(m.id)) continue;
    // What the person typed, when the model got more (files an @-reference read in).
    const shown = textOf(partsOf(m.displayContent ?? m.content));
    if (isPromptText(shown)) return shown;
  }
  return undefined;
}

export function sessionEntries(s: SessionToMap, skipped: Record<string, number>): NewEntry[] {
  const { sessionId, recording: rec } = s;
  const out: NewEntry[] = [];
  const model = [...rec.messages].reverse().find((m) => m.record.type === 'gemini' && m.record.model !== undefined)?.record.model;
  const title = rec.summary ?? firstPromptOf(rec);
  out.push(
    sessionMetaEntry(
      sessionId,
      {
        agent: 'gemini',
        model,
        cwd: s.cwd,
        source: s.source,
        title: title === undefined ? undefined : promptLine(title),
        parentSessionId: s.parentSessionId,
      },
      rec.startTime ?? rec.messages[0]?.record.timestamp,
      rec.projectHash === undefined ? {} : { projectHash: rec.projectHash },
    ),
  );

  // Tool results reach the model as user turns too (v0.44+ records them): the calls' own results come first.
  const responses = new Map<string, Part>();
  for (const { record: m } of rec.messages) if (m.type === 'user') for (const [id, p] of functionResponsesOf(partsOf(m.content))) responses.set(id, p);
  const byAgent = new Map(s.children.flatMap((c) => (c.agentId === null ? [] : [[c.agentId, c] as const])));
  const linked = new Set<string>();
  const mapped = new Set<string>();
  let orderSeq = 0;

  for (const { record: m, reseeded } of rec.messages) {
    const parts = partsOf(m.content);
    const text = textOf(parts);
    if (reseeded) {
      if (m.type === 'user' && text.trimStart().startsWith(SNAPSHOT)) {
        const anchor = compressionAnchor(sessionId, m, text, orderSeq, model);
        if (anchor !== null) out.push(anchor);
        else countSkip(skipped, 'compression/nothing-before');
      } else if (m.type === 'user' && text === '' && functionResponsesOf(parts).size > 0) {
        // A resume writes each call's result back as a turn of its own (`<answer id>_response`): the call already has it.
        countSkip(skipped, 'history/function_response');
      } else out.push(eventEntry(HISTORY_EVENT, sourceKey(sessionId, HISTORY_EVENT, m.id), { messageId: m.id, type: m.type, content: text }, m.timestamp));
      continue;
    }
    // The source's time orders the transcript: it stays put when a message is rewritten, and keeps
    // the files of a session that went on in a new one (before v0.25) in the order they were said.
    // Never a tie: a revision would sort after its equal neighbour.
    orderSeq = Math.max(createdAtOf(m.timestamp).createdAt ?? 0, orderSeq + 1);
    const message = (role: 'user' | 'assistant', extra: JsonObject = {}): NewEntry => ({
      kind: 'message',
      name: `message/${role}`,
      provenanceKey: sourceKey(sessionId, 'message', m.id, revisionOf(text)),
      payload: { messageId: m.id, role, status: 'sent', orderSeq, content: text, ...extra },
      ...createdAtOf(m.timestamp),
    });
    if (m.type === 'user') {
      const kinds = parts.map(nonTextKindOf).filter((k): k is string => k !== null);
      for (const k of kinds) if (k !== 'functionResponse') countSkip(skipped, `user/${k}`);
      if (INJECTED.some((tag) => text.trimStart().startsWith(tag))) {
        out.push(eventEntry(CONTEXT_EVENT, sourceKey(sessionId, CONTEXT_EVENT, m.id), { messageId: m.id, content: text }, m.timestamp));
      } else if (text !== '') {
        const shown = m.displayContent === undefined ? text : textOf(partsOf(m.displayContent));
        out.push(message('user', shown !== text ? { displayContent: shown } : {}));
        mapped.add(m.id);
      } else if (kinds.includes('functionResponse')) {
        countSkip(skipped, 'user/function_response');
      } else if (kinds.length === 0) countSkip(skipped, 'user/empty');
    } else if (m.type === 'gemini') {
      out.push(message('assistant'));
      mapped.add(m.id);
      out.push(...thoughtEntries(sessionId, m, parts, skipped));
      if (m.tokens) out.push(attemptEntry(sessionId, m));
      const calls = (m.toolCalls ?? []).flatMap((raw) => {
        const c = toolCallRecord.safeParse(raw);
        if (!c.success) countSkip(skipped, 'invalid/toolCall');
        return c.success ? [c.data] : [];
      });
      const callIds = new Set(calls.map((c) => c.id));
      for (const p of parts) {
        const k = nonTextKindOf(p);
        // A call in the content is recorded with its result in toolCalls once it has run.
        if (k !== null && !(k === 'functionCall' && p.functionCall?.id !== undefined && callIds.has(p.functionCall.id))) countSkip(skipped, `gemini/${k}`);
      }
      for (const call of calls) {
        out.push(...callEntries(sessionId, m.id, call, responses.get(call.id)));
        const child = call.agentId === undefined ? undefined : byAgent.get(call.agentId);
        if (child !== undefined && !linked.has(child.sessionId)) {
          linked.add(child.sessionId);
          out.push(
            subagentLinkEntry(
              sessionId,
              child.sessionId,
              { childSessionId: child.sessionId, agentId: call.agentId ?? '', toolCallId: call.id, messageId: m.id },
              call.timestamp,
            ),
          );
        }
      }
    } else if (NOTICE_TYPES.has(m.type)) {
      out.push(eventEntry(`gemini/${m.type}`, sourceKey(sessionId, m.type, m.id), { messageId: m.id, content: text }, m.timestamp));
    } else countSkip(skipped, `message/${m.type}`);
  }

  for (const id of rec.rewound)
    if (mapped.has(id)) out.push(eventEntry(RETRACTED_EVENT, sourceKey(sessionId, RETRACTED_EVENT, id), { messageId: id, reason: 'rewound in Gemini CLI' }));
  // Subagents whose spawning call is not recorded (before v0.39) are linked at the end.
  for (const c of s.children)
    if (!linked.has(c.sessionId))
      out.push(subagentLinkEntry(sessionId, c.sessionId, { childSessionId: c.sessionId, ...(c.agentId === null ? {} : { agentId: c.agentId }) }, c.startTime));
  return out;
}

/**
 * A compression: the `$set` checkpoint that put its summary first in the history stands for every
 * message said before it (they stay on the tape). The log does not say whether `/compress` or the
 * context's size set it off: `auto`, the common case.
 */
function compressionAnchor(sessionId: string, m: MessageRecord, summary: string, cursorOrderSeq: number, model: string | undefined): NewEntry | null {
  if (cursorOrderSeq === 0) return null;
  const anchor = compactionAnchorEntry({ trigger: 'auto', summary, cursorOrderSeq, sourceEntryIds: [], model: { id: model ?? 'unknown', vendor: 'google' } });
  return { ...anchor, provenanceKey: sourceKey(sessionId, 'compression', m.id), ...createdAtOf(m.timestamp) };
}

function thoughtEntries(sessionId: string, m: MessageRecord, parts: readonly Part[], skipped: Record<string, number>): NewEntry[] {
  const thoughts = (m.thoughts ?? []).flatMap((raw) => {
    const t = thoughtRecord.safeParse(raw);
    if (!t.success) countSkip(skipped, 'invalid/thought');
    return t.success ? [t.data] : [];
  });
  const all: JsonObject[] = [
    ...thoughts.map((t) => ({ subject: t.subject ?? '', description: t.description ?? '', timestamp: t.timestamp ?? null })),
    ...thoughtPartsOf(parts).map((text) => ({ description: text, timestamp: null })),
  ];
  return all.map((t, i) =>
    eventEntry(
      THOUGHT_EVENT,
      sourceKey(sessionId, THOUGHT_EVENT, m.id, i),
      { messageId: m.id, ...t },
      typeof t.timestamp === 'string' ? t.timestamp : m.timestamp,
    ),
  );
}

/** Gemini's `usageMetadata`: `promptTokenCount` counts the cached tokens, `candidatesTokenCount` leaves the thoughts out. */
const GEMINI_BASIS: UsageBasis = { inputHasCacheRead: true, inputHasCacheWrite: true, outputHasReasoning: false };

/** The model request's token counts as Gemini CLI recorded them, as the tape sums them (tapeUsage). */
function attemptEntry(sessionId: string, m: MessageRecord): NewEntry {
  const t = m.tokens ?? {};
  const usage = tapeUsage({ input: t.input ?? 0, output: t.output ?? 0, cacheRead: t.cached, reasoning: t.thoughts }, GEMINI_BASIS);
  // The tool-use prompt's tokens and the total as Gemini CLI wrote them, kept with its other figures.
  const reported: JsonObject = {
    ...(usage.reported as JsonObject),
    ...(t.tool === undefined ? {} : { tool: t.tool }),
    ...(t.total === undefined ? {} : { total: t.total }),
  };
  return eventEntry(
    ATTEMPT_EVENT,
    sourceKey(sessionId, ATTEMPT_EVENT, m.id),
    { messageId: m.id, model: m.model ?? 'unknown', usage: { ...usage, reported } },
    m.timestamp,
  );
}

function callEntries(sessionId: string, messageId: string, call: ToolCallRecord, response: Part | undefined): NewEntry[] {
  const at = createdAtOf(call.timestamp);
  const out: NewEntry[] = [
    {
      kind: 'tool_call',
      name: call.name,
      provenanceKey: sourceKey(sessionId, 'tool_call', call.id),
      payload: { messageId, toolCallId: call.id, name: call.name, input: (call.args ?? null) as JsonObject[string] },
      ...at,
    },
  ];
  const status = resultStatusOf(call);
  if (status === null) return out;
  const output =
    call.result !== undefined && call.result !== null
      ? toolOutputOf(call.result)
      : response !== undefined
        ? toolOutputOf([response])
        : typeof call.resultDisplay === 'string'
          ? call.resultDisplay
          : '';
  out.push({
    kind: 'tool_result',
    name: call.name,
    provenanceKey: sourceKey(sessionId, 'tool_result', call.id),
    payload: { messageId, toolCallId: call.id, status, output: output as JsonObject[string] },
    ...at,
  });
  return out;
}
