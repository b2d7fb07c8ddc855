import { ATTEMPT_EVENT } from '../../tape/entryNames';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { promptLine } from '../agentDiscovery';
import { countSkip, createdAtOf, eventEntry, sessionMetaEntry, sourceKey, subagentLinkEntry, type MappedSession } from '../format';
import { OPENAI_BASIS, tapeUsage } from '../tapeUsage';
import {
  assistantMessageData,
  compactionCompleteData,
  reasoningData,
  subagentStartedData,
  toolCompleteData,
  toolRequest,
  toolStartData,
  usageRecordData,
  userMessageData,
  type EventLine,
  type UsageFigures,
} from './events';
import { firstPromptOf } from './firstPrompt';

/**
 * A Copilot CLI session log as tape sessions: the main agent's as `copilot-cli:<session id>`, each
 * subagent's (its events inline, tagged `agentId`) as `copilot-cli:<session id>/agent-<agentId>`,
 * linked after the call that spawned it. Prompts and answers as messages, each tool call with its
 * result, one attempt per model request (`session.usage_record`; a compaction's request from its
 * `compactionTokensUsed`), a compaction as an anchor, the session's own notices as events.
 */

const EVENT_PREFIX = 'copilot-cli/';
const REASONING_EVENT = `${EVENT_PREFIX}reasoning`;

/** Events kept as `copilot-cli/<type>` events with their data: what the session said about itself. */
const KEPT_EVENTS = new Set([
  'session.start',
  'session.resume',
  'session.shutdown',
  'session.model_change',
  'session.mode_changed',
  'session.plan_changed',
  'session.context_changed',
  'session.truncation',
  'session.task_complete',
  'session.error',
  'session.warning',
  'session.info',
  'system.message',
  'system.notification',
  'subagent.completed',
  'subagent.failed',
  'abort',
]);

/** Events that concern a subagent from its parent's side (they carry the child's `agentId`). */
const PARENT_SIDE = new Set(['subagent.started', 'subagent.completed', 'subagent.failed']);

/** A subagent id this code puts in a tape session id. */
const AGENT_ID = /^[A-Za-z0-9_.-]{1,200}$/;

export interface SessionToMap {
  /** The tape session id of the main agent: `copilot-cli:<session id>`. */
  sessionId: string;
  events: readonly EventLine[];
  source: string;
  cwd?: string;
}

interface TapeSession {
  sessionId: string;
  entries: NewEntry[];
  model?: string;
  title?: string;
  parentSessionId?: string;
  startedAt?: string;
  /** A subagent whose spawning call is not in the log: linked at the end of its parent. */
  unlinked: boolean;
}

/** Copilot CLI's figures are OpenAI-style for every provider: its input counts the cache reads and writes, its output the reasoning. */
const usageOf = (u: UsageFigures): JsonObject =>
  tapeUsage(
    { input: u.inputTokens ?? 0, output: u.outputTokens ?? 0, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens, reasoning: u.reasoningTokens },
    OPENAI_BASIS,
  );

export function sessionEntries(s: SessionToMap, skipped: Record<string, number>): MappedSession[] {
  const main: TapeSession = { sessionId: s.sessionId, entries: [], title: firstPromptOf(s.events), unlinked: false };
  const children = new Map<string, TapeSession>();
  /** The session each call was made in: a subagent's link goes after its spawning call. */
  const callSession = new Map<string, TapeSession>();
  /** Each call's tool and the message that asked for it: its result is filed under that message. */
  const calls = new Map<string, { name: string; messageId: string }>();

  const childOf = (agentId: string, parent: TapeSession, timestamp?: string): TapeSession => {
    let child = children.get(agentId);
    if (child === undefined) {
      child = { sessionId: `${s.sessionId}/agent-${agentId}`, entries: [], parentSessionId: parent.sessionId, startedAt: timestamp, unlinked: true };
      children.set(agentId, child);
    }
    return child;
  };

  for (const { lineNo, event } of s.events) {
    const { type, id, timestamp, data } = event;
    if (event.agentId !== undefined && !AGENT_ID.test(event.agentId)) {
      countSkip(skipped, `invalid/agentId/${type}`);
      continue;
    }
    const session = event.agentId === undefined || PARENT_SIDE.has(type) ? main : childOf(event.agentId, main, timestamp);
    const out = session.entries;
    const key = (...parts: (string | number)[]): string => sourceKey(session.sessionId, ...parts);
    const invalid = (): void => countSkip(skipped, `invalid/${type}`);
    const message = (role: 'user' | 'assistant', content: string, messageId: string): NewEntry => ({
      kind: 'message',
      name: `message/${role}`,
      provenanceKey: key('message', id),
      payload: { messageId, role, status: 'sent', orderSeq: lineNo, content },
      ...createdAtOf(timestamp),
    });
    const call = (toolCallId: string, name: string, input: unknown, messageId: string): void => {
      callSession.set(toolCallId, session);
      calls.set(toolCallId, { name, messageId });
      out.push({
        kind: 'tool_call',
        name,
        provenanceKey: key('tool_call', toolCallId),
        payload: { messageId, toolCallId, name, input: (input ?? null) as JsonObject[string] },
        ...createdAtOf(timestamp),
      });
    };

    if (type === 'user.message') {
      const m = userMessageData.safeParse(data);
      if (!m.success) invalid();
      else out.push(message('user', m.data.content, id));
    } else if (type === 'assistant.message') {
      const m = assistantMessageData.safeParse(data);
      if (!m.success) {
        invalid();
        continue;
      }
      if (m.data.model !== undefined) session.model = m.data.model;
      // Also one that only calls tools: its calls are filed under it.
      out.push(message('assistant', m.data.content, m.data.messageId));
      if (m.data.reasoningText !== undefined && m.data.reasoningText !== '')
        out.push(eventEntry(REASONING_EVENT, key(REASONING_EVENT, id), { messageId: m.data.messageId, content: m.data.reasoningText }, timestamp));
      for (const raw of m.data.toolRequests ?? []) {
        const r = toolRequest.safeParse(raw);
        if (r.success) call(r.data.toolCallId, r.data.name, r.data.arguments, m.data.messageId);
        else countSkip(skipped, 'invalid/toolRequest');
      }
    } else if (type === 'assistant.reasoning') {
      const r = reasoningData.safeParse(data);
      if (!r.success) invalid();
      else out.push(eventEntry(REASONING_EVENT, key(REASONING_EVENT, id), { content: r.data.content }, timestamp));
    } else if (type === 'tool.execution_start') {
      const t = toolStartData.safeParse(data);
      if (!t.success) invalid();
      // The call of an assistant message starts here: a copy of what that message asked.
      else if (calls.has(t.data.toolCallId)) countSkip(skipped, type);
      else {
        // A tool no answer asked for (one the person ran): an empty answer of its own to file it under.
        out.push(message('assistant', '', id));
        call(t.data.toolCallId, t.data.toolName, t.data.arguments, id);
      }
    } else if (type === 'tool.execution_complete') {
      const t = toolCompleteData.safeParse(data);
      if (!t.success) {
        invalid();
        continue;
      }
      const { toolCallId, success, result, error } = t.data;
      const { name, messageId } = calls.get(toolCallId) ?? { name: 'unknown', messageId: id };
      const output = success ? (result?.content ?? '') : (error?.message ?? result?.content ?? '');
      const detail = result?.detailedContent === undefined || result.detailedContent === output ? {} : { detail: result.detailedContent };
      out.push({
        kind: 'tool_result',
        name,
        provenanceKey: key('tool_result', toolCallId),
        payload: { messageId, toolCallId, status: success ? 'ok' : 'error', output, ...detail },
        ...createdAtOf(timestamp),
      });
    } else if (type === 'subagent.started') {
      const st = subagentStartedData.safeParse(data);
      if (!st.success || event.agentId === undefined) {
        invalid();
        continue;
      }
      const parent = callSession.get(st.data.toolCallId) ?? main;
      const child = childOf(event.agentId, parent, timestamp);
      child.parentSessionId = parent.sessionId;
      child.title = st.data.agentDescription ?? st.data.agentDisplayName ?? st.data.agentName;
      child.unlinked = false;
      child.model ??= st.data.model;
      parent.entries.push(
        subagentLinkEntry(
          parent.sessionId,
          event.agentId,
          { childSessionId: child.sessionId, agentId: event.agentId, toolCallId: st.data.toolCallId, agentName: st.data.agentName },
          timestamp,
        ),
      );
    } else if (type === 'session.usage_record') {
      const u = usageRecordData.safeParse(data);
      if (!u.success) {
        invalid();
        continue;
      }
      const model = u.data.usage.model ?? session.model ?? 'unknown';
      out.push(eventEntry(ATTEMPT_EVENT, key(ATTEMPT_EVENT, id), { model, usage: usageOf(u.data.usage) }, timestamp));
    } else if (type === 'session.compaction_complete') {
      const c = compactionCompleteData.safeParse(data);
      if (!c.success) {
        invalid();
        continue;
      }
      const used = c.data.compactionTokensUsed;
      const model = c.data.model ?? used?.model ?? session.model ?? 'unknown';
      // The compaction's model request is in no usage record: its figures are the compaction's.
      if (used !== undefined) out.push(eventEntry(ATTEMPT_EVENT, key(ATTEMPT_EVENT, id), { model, usage: usageOf(used), compaction: true }, timestamp));
      if (c.data.success && c.data.summaryContent !== undefined && c.data.summaryContent !== '') {
        // Everything before this line is what the summary stands for.
        const anchor = compactionAnchorEntry({
          trigger: c.data.trigger === 'manual' ? 'manual' : 'auto',
          summary: c.data.summaryContent,
          cursorOrderSeq: lineNo,
          sourceEntryIds: [],
          model: { id: model, vendor: 'unknown' },
        });
        out.push({ ...anchor, provenanceKey: key('compaction', id), ...createdAtOf(timestamp) });
      } else out.push(eventEntry(`${EVENT_PREFIX}${type}`, key(type, id), data as JsonObject, timestamp));
    } else if (KEPT_EVENTS.has(type)) {
      if (type === 'session.start' || type === 'session.resume') {
        const model = (data as { selectedModel?: unknown }).selectedModel;
        if (typeof model === 'string' && session.model === undefined) session.model = model;
      }
      out.push(eventEntry(`${EVENT_PREFIX}${type}`, key(type, id), data as JsonObject, timestamp));
    } else countSkip(skipped, type);
  }

  const meta = (t: TapeSession): NewEntry =>
    sessionMetaEntry(
      t.sessionId,
      {
        agent: 'copilot-cli',
        model: t.model,
        cwd: s.cwd,
        source: s.source,
        title: t.title === undefined ? undefined : promptLine(t.title),
        parentSessionId: t.parentSessionId,
      },
      t.startedAt ?? s.events[0]?.event.timestamp,
    );
  const sessions: MappedSession[] = [];
  for (const [agentId, child] of children) {
    if (child.unlinked) main.entries.push(subagentLinkEntry(main.sessionId, agentId, { childSessionId: child.sessionId, agentId }, child.startedAt));
    sessions.push({ sessionId: child.sessionId, entries: [meta(child), ...child.entries] });
  }
  sessions.unshift({ sessionId: main.sessionId, entries: [meta(main), ...main.entries] });
  return sessions;
}
