import { ATTEMPT_EVENT, SESSION_META } from '../../tape/entryNames';
import * as path from 'path';
import * as z from 'zod';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import {
  countSkip,
  createdAtOf,
  eventEntry,
  otherSession,
  sourceKey,
  subagentLinkEntry,
  uuidOfName,
  type Mapped,
  type TranscriptFormat,
  type TranscriptMapper,
} from '../format';
import { OPENAI_BASIS, tapeUsage } from '../tapeUsage';
import type { SourceLine } from '../transcriptLines';
import { isContextFragment } from './firstPrompt';
import { subagentRolloutsOf } from './rolloutFiles';

/**
 * Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
 * `{timestamp, type, payload}` record per line. Most records carry no id of their own; their line
 * number is one, since a rollout is only ever appended to. Tool calls key on their `call_id`.
 */

const REASONING_EVENT = 'codex/reasoning';
const CONTEXT_EVENT = 'codex/context';
const AGENT_MESSAGE_EVENT = 'codex/agent_message';

const RECORD_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted', 'world_state', 'token_usage_record']);

const record = z.looseObject({ type: z.string().min(1), timestamp: z.string().optional(), payload: z.looseObject({ type: z.string().optional() }) });
const message = z.looseObject({
  type: z.literal('message'),
  id: z.string().min(1).optional(),
  role: z.string(),
  content: z.array(z.looseObject({ text: z.string().optional() })),
});
const call = z.looseObject({
  type: z.enum(['function_call', 'custom_tool_call']),
  name: z.string().min(1),
  call_id: z.string().min(1),
  arguments: z.string().optional(),
  input: z.unknown().optional(),
});
const callOutput = z.looseObject({ type: z.enum(['function_call_output', 'custom_tool_call_output']), call_id: z.string().min(1), output: z.unknown() });
const n = z.number().nonnegative().optional();
const usageFigures = z.looseObject({ input_tokens: n, cached_input_tokens: n, cache_write_input_tokens: n, output_tokens: n, reasoning_output_tokens: n });
const tokenCount = z.looseObject({ type: z.literal('token_count'), info: z.looseObject({ last_token_usage: usageFigures }) });
/** 0.16x: one per response, with the response's id. */
const usageRecord = z.looseObject({ usage: usageFigures });
const meta = z.looseObject({ id: z.string().min(1).optional(), model: z.string().optional(), parent_thread_id: z.string().min(1).optional() });
/** A compaction's history inline (`replacement_history`), or as entries: items inline or a reference to an item earlier in the rollout. */
const historyEntry = z.union([
  z.looseObject({ type: z.literal('inline'), item: z.unknown() }),
  z.looseObject({ type: z.literal('reference'), item_id: z.string() }),
]);
const compacted = z.looseObject({
  message: z.string().optional(),
  replacement_history: z.array(z.unknown()).optional(),
  replacement_history_entries: z.array(z.unknown()).optional(),
});
/** A multi_agent_v2 message between agents: a task a parent sends its subagent, a subagent's answer. */
const agentMessage = z.looseObject({
  type: z.literal('agent_message'),
  id: z.string().min(1).optional(),
  author: z.string().optional(),
  recipient: z.string().optional(),
  content: z.array(z.looseObject({ text: z.string().optional() })),
});
/**
 * Codex's notes that a subagent started (the item's id is the spawning call's) and completed,
 * each naming the child's thread.
 */
const subagentActivity = z.looseObject({
  type: z.literal('item_completed'),
  item: z.looseObject({
    type: z.literal('SubAgentActivity'),
    kind: z.string(),
    id: z.string().min(1),
    agent_thread_id: z.string().min(1),
    agent_path: z.string().optional(),
  }),
});

const textsOf = (content: readonly { text?: string }[]): string[] => content.flatMap((part) => (part.text === undefined ? [] : [part.text]));

/**
 * A compaction's summary: what replaced the conversation in the model's context. Codex writes
 * that history (`replacement_history`) for a local compaction too, as the user's latest requests
 * kept verbatim and then the summary, so its readable messages are the summary; a remote
 * compaction's own summary is encrypted and those messages are all there is to read. Without a
 * history (older rollouts), the message alone; a message the history does not hold is added.
 */
function compactedSummary(payload: unknown, earlier: ReadonlyMap<string, unknown>): string {
  const p = compacted.safeParse(payload);
  if (!p.success) return '';
  // Newer rollouts write the history as entries, an item unchanged since it was written as a
  // reference to it (by its id): it is read where it was.
  const history =
    p.data.replacement_history ??
    (p.data.replacement_history_entries ?? []).flatMap((raw) => {
      const e = historyEntry.safeParse(raw);
      if (!e.success) return [];
      return e.data.type === 'inline' ? [e.data.item] : earlier.has(e.data.item_id) ? [earlier.get(e.data.item_id)] : [];
    });
  const parts = history
    .flatMap((item) => {
      const m = message.safeParse(item);
      if (!m.success || (m.data.role !== 'user' && m.data.role !== 'assistant')) return [];
      const texts = textsOf(m.data.content);
      return texts.some(isContextFragment) ? [] : [texts.join('\n\n')];
    })
    .filter((t) => t !== '');
  const summary = p.data.message ?? '';
  if (summary !== '' && !parts.some((t) => t.includes(summary))) parts.push(summary);
  return parts.join('\n\n');
}

// Codex writes each message twice: as a response item (kept, it sits among the tool calls) and as
// one of these events (counted as skipped); 0.16x writes every item a third time, completed.
const DUPLICATE_EVENTS = new Set(['user_message', 'agent_message', 'agent_reasoning', 'item_completed']);

/** A JSON arguments text as its value, so the tape holds the input the tool got; else the text. */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A tool output's status: shell outputs carry the exit code, as JSON (`metadata.exit_code`) or as
 * text ("Exit code: N", or "Process exited with code N" from unified exec); an output without one is ok.
 */
export function statusOfOutput(output: unknown): 'ok' | 'error' {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  const parsed = typeof output === 'string' ? jsonOr(output) : output;
  const code =
    (parsed as { metadata?: { exit_code?: unknown } } | null)?.metadata?.exit_code ?? /^(?:Exit code:|Process exited with code) (-?\d+)/m.exec(text ?? '')?.[1];
  return code === undefined || Number(code) === 0 ? 'ok' : 'error';
}

/**
 * The session a rollout is of: the id its name ends with (`rollout-<time>-<id>.jsonl`); for a
 * renamed copy, the first session_meta's id, else the name.
 */
function sessionIdOf(file: string, records: readonly { rec: z.infer<typeof record> }[]): string {
  const metaId = records.find((r) => r.rec.type === 'session_meta')?.rec.payload.id;
  return uuidOfName(file) ?? (typeof metaId === 'string' && metaId !== '' ? metaId : path.basename(file, '.jsonl'));
}

/** A Codex usage as the tape counts it: OpenAI's input includes its cached part, its output the reasoning. */
const usageOf = (u: z.infer<typeof usageFigures>): JsonObject =>
  tapeUsage(
    {
      input: u.input_tokens ?? 0,
      output: u.output_tokens ?? 0,
      cacheRead: u.cached_input_tokens,
      cacheWrite: u.cache_write_input_tokens,
      reasoning: u.reasoning_output_tokens,
    },
    OPENAI_BASIS,
  );

export const codex: TranscriptFormat = {
  name: 'codex',
  recognizes: (r) => {
    const p = record.safeParse(r);
    return p.success && RECORD_TYPES.has(p.data.type);
  },
  // A rollout's subagents are read with it: each link then freezes its child as the tape has it.
  companions: (file) => subagentRolloutsOf(file),
  mapper(file): TranscriptMapper {
    const main = rolloutMapper(file);
    const children = new Map<string, RolloutMapper>();
    return {
      map(lines, companions): Mapped {
        const out = main(lines);
        for (const c of companions) {
          let child = children.get(c.file);
          if (child === undefined) children.set(c.file, (child = rolloutMapper(c.file)));
          const mapped = child(c.lines);
          out.sessions.push(...mapped.sessions);
          for (const [type, n] of Object.entries(mapped.skipped)) countSkip(out.skipped, type, n);
        }
        return out;
      },
    };
  },
};

type RolloutMapper = (lines: readonly SourceLine[]) => Mapped;

/** One rollout's mapper: fed the lines each read adds, it remembers what later lines refer to. */
function rolloutMapper(file: string): RolloutMapper {
  let fileSession: string | null = null;
  const state = {
    callMessages: new Map<string, { messageId: string; name: string }>(),
    // The assistant message a tool call belongs to: the last one since the user spoke.
    assistantId: null as string | null,
    model: 'unknown',
    // A rollout that writes a usage record per response (0.16x) repeats it in token_count
    // events, and writes none for some responses (a compaction's): the records are counted.
    usageRecords: false,
    // A subagent's rollout names its parent: the tasks sent to it are its prompts.
    subagent: false,
    // The messages so far by id, for a compaction whose history refers to them.
    items: new Map<string, unknown>(),
    // The call that spawned each subagent, by the child's thread.
    spawnedBy: new Map<string, string>(),
  };
  return (main) => {
    const skipped: Record<string, number> = {};
    const records = main.flatMap(({ lineNo, record: raw }) => {
      const r = record.safeParse(raw);
      if (r.success) return [{ lineNo, rec: r.data }];
      countSkip(skipped, 'invalid/record');
      return [];
    });
    const sessionId = (fileSession ??= `codex:${sessionIdOf(file, records)}`);
    const entries: NewEntry[] = [];
    for (const { lineNo, rec } of records) {
      const p = rec.payload;
      const at = createdAtOf(rec.timestamp);
      const ptype = p.type ?? 'none';
      const messageOf = (messageId: string, role: 'user' | 'assistant', content: string): NewEntry => ({
        kind: 'message',
        name: `message/${role}`,
        provenanceKey: sourceKey(sessionId, 'message', messageId),
        payload: { messageId, role, status: 'sent', orderSeq: lineNo, content },
        ...at,
      });
      const attempt = (usage: JsonObject): NewEntry =>
        eventEntry(ATTEMPT_EVENT, sourceKey(sessionId, ATTEMPT_EVENT, lineNo), { model: state.model, usage }, rec.timestamp);
      if (rec.type === 'session_meta' && typeof p.id === 'string' && `codex:${p.id}` !== sessionId) {
        countSkip(skipped, otherSession(rec.type));
      } else if (rec.type === 'session_meta' || rec.type === 'turn_context') {
        const m = meta.safeParse(p);
        if (m.success && m.data.model) state.model = m.data.model;
        if (rec.type === 'session_meta' && m.success && m.data.parent_thread_id !== undefined) state.subagent = true;
        entries.push(eventEntry(SESSION_META, sourceKey(sessionId, SESSION_META, lineNo), { source: rec.type, ...p }, rec.timestamp));
      } else if (rec.type === 'compacted') {
        // Messages after this line are those the summary does not cover.
        const anchor = compactionAnchorEntry({
          trigger: 'auto',
          summary: compactedSummary(p, state.items),
          cursorOrderSeq: lineNo,
          sourceEntryIds: [],
          model: { id: state.model, vendor: 'openai' },
        });
        entries.push({ ...anchor, provenanceKey: sourceKey(sessionId, 'compaction', lineNo), ...at });
      } else if (rec.type === 'token_usage_record') {
        const u = usageRecord.safeParse(p);
        state.usageRecords = true;
        if (u.success) entries.push(attempt(usageOf(u.data.usage)));
        else countSkip(skipped, 'invalid/token_usage_record');
      } else if (rec.type === 'event_msg') {
        const t = tokenCount.safeParse(p);
        const activity = subagentActivity.safeParse(p);
        if (t.success && !state.usageRecords) {
          entries.push(attempt(usageOf(t.data.info.last_token_usage)));
        } else if (activity.success) {
          // Linked when it starts, right after the spawning call, and again when it is done:
          // each link freezes the child as the tape has it then, the last one in force.
          const { id, kind, agent_thread_id: child, agent_path: agentPath } = activity.data.item;
          if (kind === 'started') state.spawnedBy.set(child, id);
          const toolCallId = state.spawnedBy.get(child);
          const messageId = toolCallId === undefined ? undefined : state.callMessages.get(toolCallId)?.messageId;
          const data: { childSessionId: string } & JsonObject = { childSessionId: `codex:${child}` };
          if (toolCallId !== undefined) data.toolCallId = toolCallId;
          if (messageId !== undefined) data.messageId = messageId;
          if (agentPath !== undefined) data.agentPath = agentPath;
          entries.push(subagentLinkEntry(sessionId, child, data, rec.timestamp));
        } else if (DUPLICATE_EVENTS.has(ptype) || ptype === 'token_count') {
          // A token_count without usage carries only rate limits; with a usage record, a copy of it.
          countSkip(skipped, `event_msg/${ptype}`);
        } else entries.push(eventEntry(`codex/event/${ptype}`, sourceKey(sessionId, 'event', lineNo), p, rec.timestamp));
      } else if (rec.type === 'response_item') {
        const m = message.safeParse(p);
        const c = call.safeParse(p);
        const o = callOutput.safeParse(p);
        const a = agentMessage.safeParse(p);
        if (m.success) {
          const content = textsOf(m.data.content).join('\n\n');
          const messageId = m.data.id ?? `line-${lineNo}`;
          if (m.data.id !== undefined && (m.data.role === 'user' || m.data.role === 'assistant')) state.items.set(m.data.id, p);
          if (m.data.role === 'user' && textsOf(m.data.content).some(isContextFragment)) {
            entries.push(eventEntry(CONTEXT_EVENT, sourceKey(sessionId, 'message', messageId), { content }, rec.timestamp));
          } else if (m.data.role === 'user') {
            entries.push(messageOf(messageId, 'user', content));
            state.assistantId = null;
          } else if (m.data.role === 'assistant') {
            entries.push(messageOf(messageId, 'assistant', content));
            state.assistantId = messageId;
          } else entries.push(eventEntry(`codex/${m.data.role}`, sourceKey(sessionId, 'message', messageId), { content }, rec.timestamp));
        } else if (a.success) {
          // The readable part: the task itself may be encrypted, as the model wrote it.
          const content = textsOf(a.data.content).join('\n\n');
          const messageId = a.data.id ?? `line-${lineNo}`;
          if (state.subagent) {
            entries.push(messageOf(messageId, 'user', content));
            state.assistantId = null;
          } else
            entries.push(
              eventEntry(
                AGENT_MESSAGE_EVENT,
                sourceKey(sessionId, 'message', messageId),
                { author: a.data.author ?? null, recipient: a.data.recipient ?? null, content },
                rec.timestamp,
              ),
            );
        } else if (c.success) {
          if (state.assistantId === null) {
            // A call with no text before it still needs a message to hang on in the fold.
            state.assistantId = `call-${c.data.call_id}`;
            entries.push(messageOf(state.assistantId, 'assistant', ''));
          }
          const { name, call_id: toolCallId } = c.data;
          state.callMessages.set(toolCallId, { messageId: state.assistantId, name });
          const input = c.data.arguments !== undefined ? jsonOr(c.data.arguments) : (c.data.input ?? null);
          entries.push({
            kind: 'tool_call',
            name,
            provenanceKey: sourceKey(sessionId, 'tool_call', toolCallId),
            payload: { messageId: state.assistantId, toolCallId, name, input },
            ...at,
          });
        } else if (o.success) {
          const callOf = state.callMessages.get(o.data.call_id);
          if (!callOf) countSkip(skipped, `response_item/${ptype}_without_call`);
          else {
            const output = (o.data.output ?? '') as JsonObject[string];
            entries.push({
              kind: 'tool_result',
              name: callOf.name,
              provenanceKey: sourceKey(sessionId, 'tool_result', o.data.call_id),
              payload: { messageId: callOf.messageId, toolCallId: o.data.call_id, status: statusOfOutput(output), output },
              ...at,
            });
          }
        } else if (ptype === 'reasoning' || ptype === 'web_search_call') {
          entries.push(eventEntry(ptype === 'reasoning' ? REASONING_EVENT : 'codex/web_search', sourceKey(sessionId, ptype, lineNo), p, rec.timestamp));
        } else countSkip(skipped, `response_item/${ptype}`);
      } else countSkip(skipped, rec.type);
    }
    return { sessions: [{ sessionId, entries }], skipped };
  };
}
