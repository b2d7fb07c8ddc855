import * as path from 'path';
import * as z from 'zod';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { ATTEMPT_EVENT } from '../../tape/projections/tokenUsage';
import {
  countSkip,
  createdAtOf,
  eventEntry,
  otherSession,
  SESSION_META,
  sourceKey,
  uuidOfName,
  type Mapped,
  type TranscriptFormat,
  type TranscriptMapper,
} from '../format';
import { isContextFragment } from './firstPrompt';

/**
 * Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
 * `{timestamp, type, payload}` record per line. Most records carry no id of their own; their line
 * number is one, since a rollout is only ever appended to. Tool calls key on their `call_id`.
 */

const REASONING_EVENT = 'codex/reasoning';
const CONTEXT_EVENT = 'codex/context';

const RECORD_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

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
const tokenCount = z.looseObject({
  type: z.literal('token_count'),
  info: z.looseObject({ last_token_usage: z.looseObject({ input_tokens: n, cached_input_tokens: n, output_tokens: n, reasoning_output_tokens: n }) }),
});
const meta = z.looseObject({ id: z.string().min(1).optional(), model: z.string().optional() });
const compacted = z.looseObject({ message: z.string().optional(), replacement_history: z.array(z.unknown()).optional() });

/**
 * A compaction's summary: what replaced the conversation in the model's context. Codex writes
 * that history (`replacement_history`) for a local compaction too, as the user's latest requests
 * kept verbatim and then the summary, so its readable messages are the summary; a remote
 * compaction's own summary is encrypted and those messages are all there is to read. Without a
 * history (older rollouts), the message alone; a message the history does not hold is added.
 */
function compactedSummary(payload: unknown): string {
  const p = compacted.safeParse(payload);
  if (!p.success) return '';
  const parts = (p.data.replacement_history ?? [])
    .flatMap((item) => {
      const m = message.safeParse(item);
      if (!m.success || (m.data.role !== 'user' && m.data.role !== 'assistant')) return [];
      const texts = m.data.content.flatMap((part) => (part.text === undefined ? [] : [part.text]));
      return texts.some(isContextFragment) ? [] : [texts.join('\n\n')];
    })
    .filter((t) => t !== '');
  const summary = p.data.message ?? '';
  if (summary !== '' && !parts.some((t) => t.includes(summary))) parts.push(summary);
  return parts.join('\n\n');
}

// Codex writes each message twice: as a response item (kept, it sits among the tool calls) and as
// one of these events (counted as skipped).
const DUPLICATE_EVENTS = new Set(['user_message', 'agent_message', 'agent_reasoning']);

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
 * text ("Exit code: N"); an output without one is ok.
 */
export function statusOfOutput(output: unknown): 'ok' | 'error' {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  const parsed = typeof output === 'string' ? jsonOr(output) : output;
  const code = (parsed as { metadata?: { exit_code?: unknown } } | null)?.metadata?.exit_code ?? /^Exit code: (-?\d+)/m.exec(text ?? '')?.[1];
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

export const codex: TranscriptFormat = {
  name: 'codex',
  recognizes: (r) => {
    const p = record.safeParse(r);
    return p.success && RECORD_TYPES.has(p.data.type);
  },
  companions: () => [],
  mapper(file): TranscriptMapper {
    let fileSession: string | null = null;
    const state = {
      callMessages: new Map<string, { messageId: string; name: string }>(),
      // The assistant message a tool call belongs to: the last one since the user spoke.
      assistantId: null as string | null,
      model: 'unknown',
    };
    return {
      map(main): Mapped {
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
          if (rec.type === 'session_meta' && typeof p.id === 'string' && `codex:${p.id}` !== sessionId) {
            countSkip(skipped, otherSession(rec.type));
          } else if (rec.type === 'session_meta' || rec.type === 'turn_context') {
            const m = meta.safeParse(p);
            if (m.success && m.data.model) state.model = m.data.model;
            entries.push(eventEntry(SESSION_META, sourceKey(sessionId, SESSION_META, lineNo), { source: rec.type, ...p }, rec.timestamp));
          } else if (rec.type === 'compacted') {
            // Messages after this line are those the summary does not cover.
            const anchor = compactionAnchorEntry({
              trigger: 'auto',
              summary: compactedSummary(p),
              cursorOrderSeq: lineNo,
              sourceEntryIds: [],
              model: { id: state.model, vendor: 'openai' },
            });
            entries.push({ ...anchor, provenanceKey: sourceKey(sessionId, 'compaction', lineNo), ...at });
          } else if (rec.type === 'event_msg') {
            const t = tokenCount.safeParse(p);
            if (t.success) {
              const u = t.data.info.last_token_usage;
              const usage = {
                inputTokens: u.input_tokens ?? 0,
                outputTokens: u.output_tokens ?? 0,
                cachedTokens: u.cached_input_tokens ?? 0,
                reasoningTokens: u.reasoning_output_tokens ?? 0,
              };
              entries.push(eventEntry(ATTEMPT_EVENT, sourceKey(sessionId, ATTEMPT_EVENT, lineNo), { model: state.model, usage }, rec.timestamp));
            } else if (DUPLICATE_EVENTS.has(ptype) || ptype === 'token_count') {
              // A token_count without usage carries only rate limits.
              countSkip(skipped, `event_msg/${ptype}`);
            } else entries.push(eventEntry(`codex/event/${ptype}`, sourceKey(sessionId, 'event', lineNo), p, rec.timestamp));
          } else if (rec.type === 'response_item') {
            const m = message.safeParse(p);
            const c = call.safeParse(p);
            const o = callOutput.safeParse(p);
            if (m.success) {
              const parts = m.data.content.flatMap((part) => (part.text === undefined ? [] : [part.text]));
              const content = parts.join('\n\n');
              const messageId = m.data.id ?? `line-${lineNo}`;
              if (m.data.role === 'user' && parts.some(isContextFragment)) {
                entries.push(eventEntry(CONTEXT_EVENT, sourceKey(sessionId, 'message', messageId), { content }, rec.timestamp));
              } else if (m.data.role === 'user') {
                entries.push(messageOf(messageId, 'user', content));
                state.assistantId = null;
              } else if (m.data.role === 'assistant') {
                entries.push(messageOf(messageId, 'assistant', content));
                state.assistantId = messageId;
              } else entries.push(eventEntry(`codex/${m.data.role}`, sourceKey(sessionId, 'message', messageId), { content }, rec.timestamp));
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
      },
    };
  },
};
