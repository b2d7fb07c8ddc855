import * as z from 'zod';
import { ATTEMPT_EVENT, TURN_END, TURN_START } from '../../tape/entryNames';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { jsonTextTooDeep } from '../../tape/jsonDepth';
import { promptLine } from '../agentDiscovery';
import { countSkip, eventEntry, sessionMetaEntry, sourceKey, subagentLinkEntry, type MappedSession } from '../format';
import { OPENAI_BASIS, tapeUsage } from '../tapeUsage';
import type { AttributeValue, Span } from './otlpSpans';
import { toolArgumentsOf, toolResultOf } from './otlpToolContent';

/**
 * OpenTelemetry GenAI spans as tape sessions: one per `gen_ai.conversation.id` (`otlp:<id>`), else
 * per trace (`otlp:trace-<trace id>`); an `invoke_agent` span under an `execute_tool` span (a
 * subagent, as Copilot Chat parents its `runSubagent` agents) a session of its own,
 * `<parent>/agent-<span id>`, linked after that call. `invoke_agent` spans are turns, each model
 * request span (`chat`, `text_completion`, `generate_content`) a provider attempt with its tokens
 * and, when the spans carry content, the person's last message and the answer; `execute_tool`
 * spans tool calls with their results. Entries are keyed by trace and span ids, so reading the
 * same spans again appends nothing.
 */

/** What a session read from spans does not have, said on its session/meta. */
export const OTLP_LOSSY =
  'read from OpenTelemetry spans: messages only as far as the spans captured content, no system prompt, tool definitions, thinking, edits or forks';

const MODEL_REQUESTS = new Set(['chat', 'text_completion', 'generate_content']);
/** GenAI operations that are no part of a conversation on the tape: counted by name. */
const OTHER_OPERATIONS = new Set(['embeddings', 'create_agent', 'retrieval', 'invoke_workflow', 'schedule_tool_calls']);
/**
 * Gemini CLI's own `gen_ai.operation.name`s (0.61.0): its spans carry the GenAI attributes under
 * them, an `agent_call` is a subagent's run below the `invoke_agent` tool's call; its
 * `schedule_tool_calls` only groups a batch of calls.
 */
const OPERATION_ALIASES: ReadonlyMap<string, string> = new Map([
  ['llm_call', 'chat'],
  ['tool_call', 'execute_tool'],
  ['agent_call', 'invoke_agent'],
]);

/** A conversation id this code puts in a tape session id. */
const CONVERSATION_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** The semconv's part (`type`), or a Gemini `Part` as Gemini CLI writes them: `text`, a thought left out (its `functionCall`s, without an id in a subagent, are filed by order). */
const messagePart = z.looseObject({
  type: z.string().optional(),
  content: z.unknown().optional(),
  id: z.string().optional(),
  text: z.string().optional(),
  thought: z.boolean().optional(),
});
/** A message of `gen_ai.input.messages` / `gen_ai.output.messages`: the semconv's parts, an OpenAI-style `content`, or a Gemini `Content` (role `model`). */
const chatMessage = z.looseObject({ role: z.string(), parts: z.array(z.unknown()).optional(), content: z.unknown().optional() });

interface Message {
  role: string;
  text: string;
  /** The ids of the tool calls it asks for. */
  calls: string[];
}

interface SessionBuild {
  sessionId: string;
  parentSessionId?: string;
  title?: string;
  model?: string;
  provider?: string;
  service?: string;
  timed: { at: bigint; seq: number; entry: NewEntry }[];
  /** The person's last message on it: a request that sends it again adds no second one. */
  lastUser?: string;
  /** The last model request's answer. */
  lastAnswer?: Answer;
  /** The answer that asked for each call. */
  callAnswer: Map<string, Answer>;
}

/** A model request's answer: a call is filed under it, so it is written, empty, for a call even when the span kept no content. */
interface Answer {
  messageId: string;
  at: bigint;
  /** Its place among entries at the same time: before the request's attempt. */
  seq: number;
  written: boolean;
}

const str = (v: AttributeValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: AttributeValue | undefined): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : undefined;
const first = <T>(...values: (T | undefined)[]): T | undefined => values.find((v) => v !== undefined);
const msOf = (ns: bigint): number => Number(ns / 1_000_000n);

/** The operation a span stands for: its `gen_ai.operation.name`, else the first word of its name (`chat gpt-4o`), in the semconv's words. */
function operationOf(s: Span): string {
  const operation = str(s.attributes.get('gen_ai.operation.name')) ?? s.name.split(' ', 1)[0];
  return OPERATION_ALIASES.get(operation) ?? operation;
}

/** A JSON value held in a string attribute (the semconv writes messages and arguments as JSON text), or the value itself. */
function jsonOf(v: AttributeValue | undefined): unknown {
  if (typeof v !== 'string') return v;
  if (jsonTextTooDeep(v) !== null) return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

const textOfContent = (c: unknown): string => (typeof c === 'string' ? c : c === undefined || c === null ? '' : JSON.stringify(c));

/** The messages of a `gen_ai.*.messages` attribute; none when absent or not messages. */
function messagesOf(v: AttributeValue | undefined, skipped: Record<string, number>, attribute: string): Message[] {
  if (v === undefined) return [];
  const json = jsonOf(v);
  // Gemini CLI writes a request's one answer as a message, not a list of one.
  const list = Array.isArray(json) ? json : typeof json === 'object' && json !== null && 'role' in json ? [json] : null;
  if (list === null) return (countSkip(skipped, `invalid/${attribute}`), []);
  const out: Message[] = [];
  for (const raw of list) {
    const m = chatMessage.safeParse(raw);
    if (!m.success) {
      countSkip(skipped, `invalid/${attribute}`);
      continue;
    }
    const texts: string[] = [];
    const calls: string[] = [];
    if (m.data.parts === undefined) texts.push(textOfContent(m.data.content));
    for (const rawPart of m.data.parts ?? []) {
      const p = messagePart.safeParse(rawPart);
      if (!p.success) countSkip(skipped, `invalid/${attribute}/part`);
      else if (p.data.type === 'text') texts.push(textOfContent(p.data.content));
      else if (p.data.type === 'tool_call' && p.data.id !== undefined) calls.push(p.data.id);
      else if (p.data.type === undefined && p.data.text !== undefined && p.data.thought !== true) texts.push(p.data.text);
    }
    out.push({ role: m.data.role === 'model' ? 'assistant' : m.data.role, text: texts.filter((t) => t !== '').join('\n'), calls });
  }
  return out;
}

/** The request's tokens. The semconv counts cache reads and writes in `input_tokens` and reasoning in `output_tokens`: OpenAI's basis. */
function usageOf(a: ReadonlyMap<string, AttributeValue>): JsonObject | undefined {
  const get = (...names: string[]): number | undefined => first(...names.map((n) => num(a.get(n))));
  const input = get('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const output = get('gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const cacheRead = get('gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens');
  const cacheWrite = get('gen_ai.usage.cache_write.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens');
  const reasoning = get('gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens');
  if ([input, output, cacheRead, cacheWrite, reasoning].every((n) => n === undefined)) return undefined;
  return tapeUsage({ input: input ?? 0, output: output ?? 0, cacheRead, cacheWrite, reasoning }, OPENAI_BASIS);
}

/** Spans with their parents, each placed in its tape session. */
export function otlpSessions(spans: readonly Span[], source: string, skipped: Record<string, number>): MappedSession[] {
  const ordered = [...spans].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
  const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  const parentOf = (s: Span): Span | undefined => (s.parentSpanId === undefined ? undefined : byId.get(`${s.traceId}/${s.parentSpanId}`));
  // A trace's conversation is its first span's that names one: the spans below an agent's often do not.
  const traceConversation = new Map<string, string>();
  for (const s of ordered) {
    const id = str(s.attributes.get('gen_ai.conversation.id'));
    if (id !== undefined && !traceConversation.has(s.traceId)) traceConversation.set(s.traceId, id);
  }

  const sessions = new Map<string, SessionBuild>();
  const sessionNamed = (sessionId: string, parentSessionId?: string): SessionBuild => {
    let s = sessions.get(sessionId);
    if (s === undefined) {
      s = { sessionId, parentSessionId, timed: [], callAnswer: new Map() };
      sessions.set(sessionId, s);
    }
    return s;
  };
  let seq = 0;
  const put = (session: SessionBuild, at: bigint, entry: NewEntry, order = seq++): void => {
    session.timed.push({ at, seq: order, entry: { ...entry, createdAt: msOf(at) } });
  };

  const rootSession = (s: Span): SessionBuild => {
    const conversation = str(s.attributes.get('gen_ai.conversation.id')) ?? traceConversation.get(s.traceId);
    if (conversation !== undefined && !CONVERSATION_ID.test(conversation)) countSkip(skipped, 'invalid/gen_ai.conversation.id');
    return sessionNamed(conversation !== undefined && CONVERSATION_ID.test(conversation) ? `otlp:${conversation}` : `otlp:trace-${s.traceId}`);
  };
  // `gen_ai.tool.call_id` is Gemini CLI's spelling.
  const toolCallIdOf = (s: Span): string => first(str(s.attributes.get('gen_ai.tool.call.id')), str(s.attributes.get('gen_ai.tool.call_id'))) ?? s.spanId;
  const subagentSession = (parent: SessionBuild, agent: Span, call: Span): SessionBuild => {
    const child = sessionNamed(`${parent.sessionId}/agent-${agent.spanId}`, parent.sessionId);
    const agentName = str(agent.attributes.get('gen_ai.agent.name'));
    child.title ??= first(str(agent.attributes.get('gen_ai.agent.description')), agentName);
    const data: { childSessionId: string } & JsonObject = { childSessionId: child.sessionId, toolCallId: toolCallIdOf(call) };
    if (agentName !== undefined) data.agentName = agentName;
    put(parent, agent.start, subagentLinkEntry(parent.sessionId, agent.spanId, data));
    return child;
  };

  // Each span's session: its parent's, a new subagent's below a tool call, a root's by its conversation.
  const placed = new Map<Span, SessionBuild>();
  const place = (span: Span): SessionBuild => {
    const chain: Span[] = [];
    const seen = new Set<Span>();
    // Upwards without recursion (a hostile file may nest spans deeper than the stack goes), stopping at a cycle.
    for (let s: Span | undefined = span; s !== undefined && !placed.has(s) && !seen.has(s); s = parentOf(s)) {
      seen.add(s);
      chain.push(s);
    }
    if (chain.length === 0) return placed.get(span) as SessionBuild;
    const above = parentOf(chain[chain.length - 1]);
    let session = above === undefined ? undefined : placed.get(above);
    for (let i = chain.length - 1; i >= 0; i--) {
      const s = chain[i];
      const parent = i === chain.length - 1 ? (session === undefined ? undefined : above) : chain[i + 1];
      if (session === undefined) session = rootSession(s);
      else if (operationOf(s) === 'invoke_agent' && parent !== undefined && operationOf(parent) === 'execute_tool')
        session = subagentSession(session, s, parent);
      placed.set(s, session);
    }
    return session as SessionBuild;
  };

  /** The answer a call is filed under: the request that asked for it, else the last request, else an empty answer of the call's own. */
  const answerFor = (session: SessionBuild, callId: string, tool: Span): string => {
    const answer = session.callAnswer.get(callId) ?? session.lastAnswer;
    const messageId = answer?.messageId ?? `answer-${tool.spanId}`;
    if (answer === undefined || !answer.written) {
      const message: NewEntry = {
        kind: 'message',
        name: 'message/assistant',
        provenanceKey: sourceKey(session.sessionId, 'message', tool.traceId, messageId),
        payload: { messageId, role: 'assistant', status: 'sent', content: '' },
      };
      if (answer === undefined) put(session, tool.start, message);
      else put(session, answer.at, message, answer.seq);
      if (answer !== undefined) answer.written = true;
    }
    return messageId;
  };

  for (const span of ordered) {
    const session = place(span);
    const a = span.attributes;
    const key = (...parts: string[]): string => sourceKey(session.sessionId, ...parts, span.traceId, span.spanId);
    session.service ??= str(span.resource.get('service.name'));
    session.provider ??= first(str(a.get('gen_ai.provider.name')), str(a.get('gen_ai.system')), str(span.resource.get('gen_ai.provider.name')));
    const operation = operationOf(span);
    const userMessage = (messages: readonly Message[]): void => {
      const text = [...messages].reverse().find((m) => m.role === 'user')?.text;
      if (text === undefined || text === '' || text === session.lastUser) return;
      session.lastUser = text;
      if (session.parentSessionId === undefined) session.title ??= text;
      const messageId = `user-${span.spanId}`;
      put(session, span.start, {
        kind: 'message',
        name: 'message/user',
        provenanceKey: key('message/user'),
        payload: { messageId, role: 'user', status: 'sent', content: text },
      });
    };

    if (operation === 'invoke_agent') {
      const agent = str(a.get('gen_ai.agent.name'));
      session.model ??= first(str(a.get('gen_ai.response.model')), str(a.get('gen_ai.request.model')));
      put(session, span.start, eventEntry(TURN_START, key(TURN_START), { turnId: span.spanId, ...(agent === undefined ? {} : { agent }) }));
      userMessage(messagesOf(a.get('gen_ai.input.messages'), skipped, 'gen_ai.input.messages'));
      const outcome = span.error === undefined ? { outcome: 'answer' } : { outcome: 'error', error: span.error || (str(a.get('error.type')) ?? '') };
      put(session, span.end, eventEntry(TURN_END, key(TURN_END), { turnId: span.spanId, ...outcome }));
    } else if (MODEL_REQUESTS.has(operation)) {
      const model = first(str(a.get('gen_ai.response.model')), str(a.get('gen_ai.request.model')), session.model) ?? 'unknown';
      session.model = model;
      userMessage(messagesOf(a.get('gen_ai.input.messages'), skipped, 'gen_ai.input.messages'));
      const answers = messagesOf(a.get('gen_ai.output.messages'), skipped, 'gen_ai.output.messages').filter((m) => m.role === 'assistant');
      const answer: Answer = { messageId: span.spanId, at: span.end, seq: seq++, written: false };
      session.lastAnswer = answer;
      for (const m of answers) for (const call of m.calls) session.callAnswer.set(call, answer);
      const text = answers
        .map((m) => m.text)
        .filter((t) => t !== '')
        .join('\n');
      if (text !== '') {
        answer.written = true;
        put(
          session,
          span.end,
          {
            kind: 'message',
            name: 'message/assistant',
            provenanceKey: key('message/assistant'),
            payload: { messageId: span.spanId, role: 'assistant', status: 'sent', content: text },
          },
          answer.seq,
        );
      }
      const data: JsonObject = { model, status: span.error === undefined ? 'ok' : 'error' };
      const usage = usageOf(a);
      if (usage !== undefined) data.usage = usage;
      if (span.error !== undefined) data.error = span.error || (str(a.get('error.type')) ?? '');
      const responseId = str(a.get('gen_ai.response.id'));
      if (responseId !== undefined) data.responseId = responseId;
      put(session, span.end, eventEntry(ATTEMPT_EVENT, key(ATTEMPT_EVENT), data));
    } else if (operation === 'execute_tool') {
      const name = first(str(a.get('gen_ai.tool.name')), span.name.split(' ')[1]) ?? 'unknown';
      const toolCallId = toolCallIdOf(span);
      const messageId = answerFor(session, toolCallId, span);
      const args = toolArgumentsOf(jsonOf(a.get('gen_ai.tool.call.arguments')), jsonOf(a.get('gen_ai.input.messages')));
      put(session, span.start, {
        kind: 'tool_call',
        name,
        provenanceKey: key('tool_call'),
        payload: { messageId, toolCallId, name, input: (args ?? null) as JsonObject[string] },
      });
      const result = toolResultOf(a.get('gen_ai.tool.call.result'), jsonOf(a.get('gen_ai.output.messages')));
      const output = span.error !== undefined ? span.error || (str(a.get('error.type')) ?? textOfContent(result)) : textOfContent(result);
      put(session, span.end, {
        kind: 'tool_result',
        name,
        provenanceKey: key('tool_result'),
        payload: { messageId, toolCallId, status: span.error === undefined ? 'ok' : 'error', output },
      });
    } else countSkip(skipped, `span/${OTHER_OPERATIONS.has(operation) ? operation : 'other'}`);
  }

  // A trace of spans none of which is a GenAI operation (an HTTP server's) is no session.
  return [...sessions.values()].flatMap((s) => {
    if (s.timed.length === 0) return [];
    const timed = s.timed.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.seq - y.seq));
    const extra: JsonObject = { lossy: OTLP_LOSSY };
    if (s.provider !== undefined) extra.provider = s.provider;
    if (s.service !== undefined) extra.service = s.service;
    const meta = sessionMetaEntry(
      s.sessionId,
      { agent: 'otlp', model: s.model, source, title: s.title === undefined ? undefined : promptLine(s.title), parentSessionId: s.parentSessionId },
      timed[0] === undefined ? undefined : msOf(timed[0].at),
      extra,
    );
    // Messages in the order they were said, which is not the order the spans were read in.
    const entries = timed.map(({ entry }, i) => (entry.kind === 'message' ? { ...entry, payload: { ...entry.payload, orderSeq: i } } : entry));
    return [{ sessionId: s.sessionId, entries: [meta, ...entries] }];
  });
}
