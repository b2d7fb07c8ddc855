import type { Entry, JsonObject } from '../tape/entry';
import { textOf } from '../tape/entry';
import { ATTEMPT_EVENT, SYSTEM_PROMPT, TOOL_ERROR, VIEW_ASSEMBLED } from '../tape/entryNames';
import { manifestOfEntry, type ViewManifest } from '../tape/manifest';
import { attemptUsage } from '../tape/usage/usageStats';
import { spanIdOf } from './spanIds';

/**
 * A session projected onto the OpenTelemetry GenAI conventions (semantic conventions 1.45, with the
 * GenAI repository's later `cache_write` name): `invoke_agent {agent}` per turn, under it
 * `chat {model}` per `provider/attempt` (every physical request, retries included: what was billed)
 * and `execute_tool {tool}` per tool call and its result. A turn, not the session, is the agent
 * span: a session runs for days, and a backend shows a trace's spans by time, so one span a turn
 * keeps each question and its work together. Ingested sessions carry no turn ids: there a turn
 * starts at each user message.
 */

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

export interface GenAiSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'internal' | 'client';
  startMs: number;
  endMs: number;
  attributes: Attributes;
  /** The status message of a failed span; null for one that did not fail. */
  error: string | null;
  links: SpanLink[];
}

/** Where a session's spans sit among the tape's (./sessionPlacement.ts). */
export interface SessionPlacement {
  sessionId: string;
  agent: string;
  traceId: string;
  /** The span every turn hangs under: a subagent's call in its parent; null for a session of its own. */
  parentSpanId: string | null;
  /** Links of the first turn: the point a fork was taken at. */
  firstTurnLinks: SpanLink[];
  /** Links of the turn holding an entry (by id): a merge receipt to the fork's last turn. */
  linksAt: ReadonlyMap<number, SpanLink>;
  /** Entries that other spans already stand for (a merged fork's copies, when the fork is on the tape). */
  skip: (e: Entry) => boolean;
}

/**
 * How the cache-write token count is spelled: `cache_write`, the GenAI conventions' name since they
 * moved to their own repository and renamed it (semantic-conventions-genai #440, 2026), or
 * `cache_creation`, the name before, which `@opentelemetry/semantic-conventions` 1.45 still defines
 * (deprecated) and backends built on it read.
 */
export const CACHE_WRITE_NAMES = ['cache_write', 'cache_creation'] as const;
export type CacheWriteName = (typeof CACHE_WRITE_NAMES)[number];

export interface ProjectionOptions {
  /** The tape's file, as the user named it (`agent_tape.tape`). */
  tape: string;
  /** Messages, system instructions and tool arguments and results as attributes; off unless asked. */
  content?: boolean;
  /** `gen_ai.usage.cache_write.input_tokens` (the conventions' current name) unless `cache_creation`, the older one, is asked. */
  cacheWriteName?: CacheWriteName;
  /** Applied to every content attribute (./secretMask.ts). */
  mask?: (text: string) => string;
}

/** The provider an ingested agent's requests went to, when its records do not say. */
const AGENT_PROVIDERS: Record<string, string> = { 'claude-code': 'anthropic', codex: 'openai', gemini: 'gcp.gemini' };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : null);
const dataOf = (e: Entry): JsonObject => (isObject(e.payload.data) ? e.payload.data : {});
const turnIdOf = (e: Entry): string | null => str(e.meta.turnId) ?? str(e.payload.turnId);

export interface Turn {
  key: string;
  entries: Entry[];
}

/** A session's entries by turn: by their turn id, else a turn from each user message on; entries before the first turn belong to none. */
export function turnsOf(entries: readonly Entry[]): Turn[] {
  const turns: Turn[] = [];
  const byKey = new Map<string, Turn>();
  let current: Turn | null = null;
  for (const e of entries) {
    const id = turnIdOf(e);
    const key = id ?? (e.kind === 'message' && e.name === 'message/user' ? `entry:${e.entryId}` : null);
    if (key !== null) {
      current = byKey.get(key) ?? null;
      if (current === null) {
        current = { key, entries: [] };
        turns.push(current);
        byKey.set(key, current);
      }
    }
    current?.entries.push(e);
  }
  return turns;
}

/** The span of the turn holding entry `entryId`, or of the last turn before it; null before the first turn. */
export function turnSpanAt(sessionId: string, entries: readonly Entry[], entryId: number): string | null {
  let found: string | null = null;
  for (const t of turnsOf(entries)) if (t.entries[0].entryId <= entryId) found = t.key;
  return found === null ? null : spanIdOf(sessionId, 'turn', found);
}

/** Messages as the conventions' JSON: the last version of each, in order. */
function messagesJson(messages: readonly Entry[], mask: (t: string) => string): string {
  const last = new Map<string, Entry>();
  for (const m of messages) last.set(String(m.payload.messageId), m);
  return JSON.stringify(
    [...last.values()]
      .filter((m) => textOf(m.payload.content) !== '')
      .map((m) => ({ role: m.payload.role, parts: [{ type: 'text', content: mask(textOf(m.payload.content)) }] })),
  );
}

/** The spans of one session's entries, placed as `placement` says. */
export function genAiSpans(entries: readonly Entry[], placement: SessionPlacement, options: ProjectionOptions): GenAiSpan[] {
  const { sessionId, agent, traceId } = placement;
  const mask = options.mask ?? ((t: string) => t);
  const content = options.content === true;
  const cacheWrite = `gen_ai.usage.${options.cacheWriteName ?? 'cache_write'}.input_tokens`;
  const common: Attributes = { 'gen_ai.conversation.id': sessionId, 'agent_tape.tape': options.tape, 'agent_tape.session_id': sessionId };
  const spans: GenAiSpan[] = [];
  const manifests = new Map<string, ViewManifest>();
  const projected = entries.filter((e) => !placement.skip(e));
  const turns = turnsOf(projected);
  // Our agent writes its system prompt as the session starts, before any turn: it is in force until a turn writes another.
  let systemPrompt: string | null = null;
  for (const e of projected.slice(0, turns.length === 0 ? 0 : projected.indexOf(turns[0].entries[0])))
    if (e.kind === 'system' && e.name === SYSTEM_PROMPT) systemPrompt = textOf(e.payload.content);
  let first = true;
  for (const turn of turns) {
    const kept = turn.entries;
    const turnSpanId = spanIdOf(sessionId, 'turn', turn.key);
    const turnSpan: GenAiSpan = {
      traceId,
      spanId: turnSpanId,
      parentSpanId: placement.parentSpanId,
      name: `invoke_agent ${agent}`,
      kind: 'internal',
      startMs: kept[0].createdAt,
      endMs: kept[0].createdAt,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent,
        ...common,
        'agent_tape.turn_id': turn.key,
        'agent_tape.first_entry_id': kept[0].entryId,
        'agent_tape.last_entry_id': kept[kept.length - 1].entryId,
      },
      error: null,
      links: first ? [...placement.firstTurnLinks] : [],
    };
    first = false;
    spans.push(turnSpan);
    const calls = new Map<string, Entry>();
    const messages: Entry[] = [];
    let before = kept[0].createdAt;
    for (const e of kept) {
      turnSpan.endMs = Math.max(turnSpan.endMs, e.createdAt);
      const link = placement.linksAt.get(e.entryId);
      if (link !== undefined) turnSpan.links.push(link);
      if (e.kind === 'message') messages.push(e);
      else if (e.kind === 'system' && e.name === SYSTEM_PROMPT) systemPrompt = textOf(e.payload.content);
      else if (e.kind === 'event' && e.name === VIEW_ASSEMBLED) {
        try {
          const m = manifestOfEntry(e);
          manifests.set(`${m.turnId}/${m.requestSeq}`, m);
        } catch {
          // A manifest the schema refuses names no model: its request's span says what the attempt does.
        }
      } else if (e.kind === 'event' && e.name === ATTEMPT_EVENT) spans.push(chatSpan(e, before));
      else if (e.kind === 'tool_call') calls.set(String(e.payload.toolCallId), e);
      else if (e.kind === 'tool_result') {
        const call = calls.get(String(e.payload.toolCallId));
        calls.delete(String(e.payload.toolCallId));
        spans.push(toolSpan(call ?? null, e));
      } else if (e.kind === 'error' && e.name !== TOOL_ERROR) turnSpan.error = content ? mask(textOf(e.payload.message)) : e.name;
      // A request is sent after what it answers: the prompt, a tool's result, the response before it.
      if (e.kind === 'tool_result' || (e.kind === 'event' && e.name === ATTEMPT_EVENT) || (e.kind === 'message' && e.payload.role === 'user'))
        before = e.createdAt;
    }
    // A call the turn never answered (cancelled, crashed): its span ends where it started.
    for (const call of calls.values()) spans.push(toolSpan(call, null));
    if (content) {
      const user = messages.filter((m) => m.payload.role === 'user');
      const assistant = messages.filter((m) => m.payload.role === 'assistant');
      if (user.length > 0) turnSpan.attributes['gen_ai.input.messages'] = messagesJson(user, mask);
      if (assistant.length > 0) turnSpan.attributes['gen_ai.output.messages'] = messagesJson(assistant, mask);
      if (systemPrompt !== null) turnSpan.attributes['gen_ai.system_instructions'] = JSON.stringify([{ type: 'text', content: mask(systemPrompt) }]);
    }

    function chatSpan(e: Entry, sentAfter: number): GenAiSpan {
      const data = dataOf(e);
      const manifest = manifests.get(`${str(data.turnId) ?? turn.key}/${String(data.requestSeq)}`);
      const model = manifest?.model.id ?? str(data.model);
      const provider = manifest?.model.vendor ?? str(data.provider) ?? AGENT_PROVIDERS[agent] ?? null;
      const duration = count(data.durationMs);
      const attributes: Attributes = { 'gen_ai.operation.name': 'chat', ...common, 'agent_tape.entry_id': e.entryId };
      if (provider !== null) attributes['gen_ai.provider.name'] = provider;
      if (model !== null) attributes['gen_ai.request.model'] = attributes['gen_ai.response.model'] = model;
      const responseId = str(data.responseId) ?? str(data.messageId);
      if (responseId !== null) attributes['gen_ai.response.id'] = responseId;
      const stop = str(data.stopReason);
      if (stop !== null) attributes['gen_ai.response.finish_reasons'] = [stop];
      const usage = isObject(data.usage) ? data.usage : null;
      const figures = attemptUsage(e);
      if (usage !== null && figures !== null) {
        attributes['gen_ai.usage.input_tokens'] = figures.inputTokens;
        attributes['gen_ai.usage.output_tokens'] = figures.outputTokens;
        attributes['gen_ai.usage.cache_read.input_tokens'] = figures.cachedTokens;
        if (count(usage.cacheCreationTokens) !== null) attributes[cacheWrite] = figures.cacheCreationTokens;
        const reasoning = count(usage.reasoningTokens);
        if (reasoning !== null) attributes['gen_ai.usage.reasoning.output_tokens'] = reasoning;
      }
      if (manifest !== undefined) attributes['agent_tape.manifest_hash'] = manifest.hashes.manifestHash;
      // What the request asked of the model, as the manifest recorded it sent (older manifests have no params).
      const params = manifest?.params;
      if (params !== undefined) {
        attributes['gen_ai.request.max_tokens'] = params.maxOutput;
        if (params.temperature !== undefined) attributes['gen_ai.request.temperature'] = params.temperature;
        if (params.seed !== undefined) attributes['gen_ai.request.seed'] = params.seed;
      }
      const attempt = count(data.attempt);
      if (attempt !== null) attributes['agent_tape.attempt'] = attempt;
      return {
        traceId,
        spanId: spanIdOf(sessionId, 'attempt', e.entryId),
        parentSpanId: turnSpanId,
        name: model === null ? 'chat' : `chat ${model}`,
        kind: 'client',
        startMs: duration === null ? sentAfter : e.createdAt - duration,
        endMs: e.createdAt,
        attributes,
        error: data.status === 'error' ? (str(data.failureClass) ?? 'the request failed') : null,
        links: [],
      };
    }

    function toolSpan(call: Entry | null, result: Entry | null): GenAiSpan {
      const e = (call ?? result) as Entry;
      const toolCallId = String(e.payload.toolCallId);
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': e.name,
        'gen_ai.tool.call.id': toolCallId,
        ...common,
        'agent_tape.entry_id': e.entryId,
      };
      if (call !== null && result !== null) attributes['agent_tape.result_entry_id'] = result.entryId;
      if (content && call !== null) attributes['gen_ai.tool.call.arguments'] = mask(textOf(call.payload.input));
      if (content && result !== null) attributes['gen_ai.tool.call.result'] = mask(textOf(result.payload.output));
      return {
        traceId,
        // By the call's entry, not its id: a model may use a call id again in a later turn.
        spanId: spanIdOf(sessionId, 'tool', e.entryId),
        parentSpanId: turnSpanId,
        name: `execute_tool ${e.name}`,
        kind: 'internal',
        startMs: e.createdAt,
        endMs: (result ?? e).createdAt,
        attributes,
        error: result?.payload.status === 'error' ? (content ? mask(textOf(result.payload.output)).slice(0, 500) : 'the tool failed') : null,
        links: [],
      };
    }
  }
  return spans;
}
