import * as z from 'zod';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { countSkip, createdAtOf, sourceKey } from '../format';
import { cwdOfEnvironment, isEnvironmentDetails, modelOfEnvironment } from './environmentDetails';
import { isFocusChainInstructions } from './focusChain';
import { agentEvent, digestOf, messageEntry, type TaskMapping } from './taskMapping';
import { repliesIn, unwrapped } from './userWords';
import { notRunToolOf, parseAssistantText, resultHeaderOf } from './xmlToolCalls';

/**
 * `api_conversation_history.json`: the messages as the model saw them, Anthropic message params
 * with the agents' own fields (`ts`; Cline's `modelInfo` and per-request `metrics`; Roo Code's
 * `isSummary`/`condenseId` for a condensed context, `isTruncationMarker`, `reasoning` blocks).
 * Tool calls come as `tool_use` blocks (native tool calls) or as XML in the assistant's text
 * (xmlToolCalls.ts). A native call's result is a `tool_result` block naming it, or, as Cline
 * (3.x) writes it when it keeps no id for the call, a `[name for '…'] Result:` text block as an
 * XML call's, the message's calls answered in order in the next user message. The tools the model talks to the person through
 * (attempt_completion, ask_followup_question, plan_mode_respond) are its words, not calls waiting
 * for a result: their text is the assistant's message, and the person's reply in their result is
 * the user's.
 */

const n = z.number().finite().nonnegative().optional();
const apiMessage = z.looseObject({
  role: z.string().optional(),
  type: z.string().optional(),
  content: z.union([z.string(), z.array(z.unknown())]).optional(),
  ts: z.number().finite().optional(),
  isSummary: z.boolean().optional(),
  isTruncationMarker: z.boolean().optional(),
  condenseId: z.string().optional(),
  truncationId: z.string().optional(),
  reasoning_content: z.string().optional(),
  text: z.string().optional(),
  modelInfo: z.looseObject({ modelId: z.string().optional(), providerId: z.string().optional() }).optional(),
  metrics: z.looseObject({ tokens: z.looseObject({ prompt: n, completion: n, cached: n }).optional(), cost: n }).optional(),
});
type ApiMessage = z.infer<typeof apiMessage>;

const block = z.looseObject({ type: z.string() });
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const toolUse = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1).optional(), name: z.string().min(1), input: z.unknown().optional() });
const toolResult = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const THINKING_BLOCKS = new Set(['thinking', 'redacted_thinking', 'reasoning']);

/** The tools that are the model's words to the person, and the input holding them. */
const SPEECH_TOOLS: Readonly<Record<string, string>> = {
  attempt_completion: 'result',
  ask_followup_question: 'question',
  plan_mode_respond: 'response',
  plan_mode_response: 'response',
  act_mode_respond: 'response',
};

// What the extensions answer when a call failed or was refused (formatResponse.toolDenied, toolError, missingToolParameterError).
const ERROR_OUTPUT = /^(?:The user denied this operation|The tool execution failed with the following error|Missing value for required parameter)/;

/** A subtask's result as Roo Code (3.35+) writes it back into its parent: the child's task id. */
const SUBTASK_DONE = /^Subtask (\S+) completed\./;

export interface ApiMessageInfo {
  role: 'user' | 'assistant';
  messageId: string;
  ts?: number;
  /** The model Cline recorded for an assistant message. */
  model?: string;
  /** The model a user message's environment details name (Roo Code, Kilo Code). */
  envModel?: string;
  metrics?: ApiMessage['metrics'];
}

export interface SubtaskCall {
  childId: string;
  toolCallId: string;
  messageId: string;
  ts?: number;
}

export interface ApiHistoryMapped {
  entries: NewEntry[];
  messages: ApiMessageInfo[];
  cwd?: string;
  /** The first thing the person asked. */
  firstPrompt?: string;
  /** Subtasks whose result came back to a new_task call. */
  subtasks: SubtaskCall[];
}

interface Call {
  toolCallId: string;
  name: string;
  messageId: string;
  speech: boolean;
  /** Written as XML in the text, not a `tool_use` block. */
  xml: boolean;
}

/** A result's text; an image in it is a marker (the picture is not kept) and counted. */
function outputText(content: unknown, m: TaskMapping): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((b) => {
      const t = textBlock.safeParse(b);
      if (t.success) return t.data.text;
      const type = block.safeParse(b).data?.type ?? 'invalid';
      countSkip(m.skipped, `tool_result/${type}`);
      return type === 'image' ? '[image]' : '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

const speechText = (name: string, input: unknown): string | null => {
  const key = Object.hasOwn(SPEECH_TOOLS, name) ? SPEECH_TOOLS[name] : undefined;
  const value = key === undefined || typeof input !== 'object' || input === null ? undefined : (input as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : null;
};

/**
 * The entries of an API history, in order, and what the rest of the task's mapping needs from
 * it. `startTime` stands in for the time of messages before the first that carries one.
 */
export function mapApiHistory(m: TaskMapping, list: readonly unknown[], startTime?: number): ApiHistoryMapped {
  const out: ApiHistoryMapped = { entries: [], messages: [], subtasks: [] };
  const entries = out.entries;
  const calls = new Map<string, Call>();
  // Calls of the last assistant message not yet answered, in order: the user message after it answers them.
  let pending: Call[] = [];
  const ids = new Set<string>();
  let lastSeq = -1;
  let lastTime = startTime;

  list.forEach((raw, index) => {
    const parsed = apiMessage.safeParse(raw);
    if (!parsed.success) return countSkip(m.skipped, 'api/invalid');
    const msg = parsed.data;
    const role = msg.role;
    const ts = msg.ts;
    if (ts !== undefined) lastTime = ts;
    const time = lastTime;
    // An OpenAI reasoning item Roo Code kept as a message of its own.
    if (msg.type === 'reasoning') {
      entries.push(agentEvent(m, 'thinking', ['item', ts ?? `i${index}`], { item: raw as JsonObject }, time));
      return;
    }
    if (role !== 'user' && role !== 'assistant') return countSkip(m.skipped, `api/role/${role ?? 'none'}`);
    // Time orders the messages, so a rewritten file's new messages come after the ones it dropped.
    const orderSeq = ts !== undefined && ts > lastSeq ? ts : lastSeq + 1;
    lastSeq = orderSeq;
    let messageId = `${role}-${ts ?? `i${index}`}`;
    for (let k = 2; ids.has(messageId); k++) messageId = `${role}-${ts ?? `i${index}`}-${k}`;
    ids.add(messageId);
    const blocks: unknown[] = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : (msg.content ?? []);
    const info: ApiMessageInfo = { role, messageId, ...(ts !== undefined ? { ts } : {}) };
    out.messages.push(info);
    const thinking = (key: string | number, data: JsonObject): void =>
      void entries.push(agentEvent(m, 'thinking', [messageId, key], { messageId, ...data }, time));

    if (role === 'assistant') {
      if (msg.modelInfo?.modelId) info.model = msg.modelInfo.modelId;
      if (msg.metrics) info.metrics = msg.metrics;
      if (msg.reasoning_content) thinking('reasoning_content', { text: msg.reasoning_content });
      const native = blocks.some((b) => toolUse.safeParse(b).success);
      const said: string[] = [];
      const after: NewEntry[] = [];
      pending = [];
      blocks.forEach((b, i) => {
        const text = textBlock.safeParse(b);
        const use = toolUse.safeParse(b);
        const type = block.safeParse(b).data?.type ?? 'invalid';
        if (text.success) {
          // Native calls come as blocks; text in a native message is only text.
          if (native) return void said.push(text.data.text.trim());
          const parsedText = parseAssistantText(text.data.text);
          said.push(parsedText.text);
          parsedText.thinking.forEach((t, k) => thinking(`${i}-${k}`, { text: t }));
          parsedText.calls.forEach((c, k) => {
            const call: Call = { toolCallId: `${messageId}/xml-${i}-${k}`, name: c.name, messageId, speech: Object.hasOwn(SPEECH_TOOLS, c.name), xml: true };
            pending.push(call);
            const words = speechText(c.name, c.input);
            if (call.speech && words !== null) said.push(words);
            after.push(callEntry(m, call, c.input, time));
          });
        } else if (use.success) {
          const call: Call = {
            toolCallId: use.data.id ?? `${messageId}/tool-${i}`,
            name: use.data.name,
            messageId,
            speech: Object.hasOwn(SPEECH_TOOLS, use.data.name),
            xml: false,
          };
          pending.push(call);
          const words = speechText(call.name, use.data.input);
          if (call.speech && words !== null) said.push(words);
          after.push(callEntry(m, call, use.data.input ?? null, time));
        } else if (THINKING_BLOCKS.has(type)) {
          thinking(i, { block: b as JsonObject });
        } else countSkip(m.skipped, `assistant/${type}`);
      });
      entries.push(messageEntry(m, 'assistant', messageId, orderSeq, said.filter((s) => s !== '').join('\n\n'), time), ...after);
      for (const c of pending) calls.set(c.toolCallId, c);
      return;
    }

    // A user message: the person's words, the results of the calls before it, the environment.
    if (msg.isSummary) {
      // Roo Code's condensed context: the summary the next requests start from, after every message before it.
      const summary = blocks.flatMap((b) => textBlock.safeParse(b).data?.text ?? []).join('\n\n');
      const anchor = compactionAnchorEntry({
        trigger: 'auto',
        summary,
        cursorOrderSeq: orderSeq - 1,
        sourceEntryIds: [],
        model: { id: 'unknown', vendor: m.agent },
      });
      entries.push({ ...anchor, provenanceKey: sourceKey(m.sessionId, 'compaction', msg.condenseId ?? messageId), ...createdAtOf(time) });
      return;
    }
    if (msg.isTruncationMarker) {
      entries.push(agentEvent(m, 'truncation', [msg.truncationId ?? messageId], { messageId, content: msg.content as JsonObject[string] }, time));
      return;
    }
    const words: string[] = [];
    const results: NewEntry[] = [];
    const result = (call: Call, output: string, isError: boolean | undefined): void => {
      const status = isError === true || ERROR_OUTPUT.test(output) ? 'error' : 'ok';
      words.push(...repliesIn(output));
      if (call.name === 'new_task') {
        const child = SUBTASK_DONE.exec(output)?.[1];
        if (child !== undefined)
          out.subtasks.push({ childId: child, toolCallId: call.toolCallId, messageId: call.messageId, ...(time !== undefined ? { ts: time } : {}) });
      }
      const data: JsonObject = { messageId: call.messageId, toolCallId: call.toolCallId, status, output };
      const key = [call.messageId, call.toolCallId, digestOf(output)];
      if (call.speech) results.push(agentEvent(m, 'tool_result', key, { ...data, name: call.name }, time));
      else
        results.push({
          kind: 'tool_result',
          name: call.name,
          provenanceKey: sourceKey(m.sessionId, 'tool_result', ...key),
          payload: data,
          ...createdAtOf(time),
        });
    };
    // The next unanswered call of that tool; a native call's header may name its tool otherwise (an MCP tool's server), so else the next call.
    const takePending = (name: string, anyNative: boolean): Call | null => {
      let at = pending.findIndex((c) => c.name === name);
      if (at < 0 && anyNative) at = pending.findIndex((c) => !c.xml);
      return at < 0 ? null : pending.splice(at, 1)[0];
    };
    // An XML call's result runs from its header block to the next header or the environment details.
    const xml: { open: { call: Call | null; parts: string[] } | null } = { open: null };
    const closeOpen = (): void => {
      if (xml.open?.call) result(xml.open.call, xml.open.parts.join('\n\n'), undefined);
      xml.open = null;
    };
    blocks.forEach((b, i) => {
      const text = textBlock.safeParse(b);
      const res = toolResult.safeParse(b);
      const type = block.safeParse(b).data?.type ?? 'invalid';
      if (text.success) {
        const t = text.data.text;
        const header = resultHeaderOf(t);
        const notRun = header === null ? notRunToolOf(t) : null;
        const notRunCall = notRun === null ? null : takePending(notRun, false);
        if (isEnvironmentDetails(t)) {
          closeOpen();
          out.cwd ??= cwdOfEnvironment(t) ?? undefined;
          const model = modelOfEnvironment(t);
          if (model !== null) info.envModel = model;
          results.push(agentEvent(m, 'environment_details', [messageId, i], { messageId, content: t }, time));
        } else if (isFocusChainInstructions(t)) {
          closeOpen();
          results.push(agentEvent(m, 'focus_chain', [messageId, i], { messageId, content: t }, time));
        } else if (header !== null) {
          closeOpen();
          const call = takePending(header.name, true);
          if (call === null) countSkip(m.skipped, 'user/xml_result_without_call');
          xml.open = { call, parts: header.rest === '' ? [] : [header.rest] };
        } else if (notRunCall !== null) {
          closeOpen();
          result(notRunCall, t, true);
        } else if (xml.open !== null) xml.open.parts.push(t);
        else words.push(unwrapped(t));
      } else if (res.success) {
        closeOpen();
        const call = calls.get(res.data.tool_use_id);
        pending = pending.filter((c) => c !== call);
        if (call === undefined) countSkip(m.skipped, 'user/tool_result_without_call');
        else {
          // Cline (3.x) writes the call's `[name for '…'] Result:` header into the block too: the result is what follows it.
          const output = outputText(res.data.content, m);
          result(call, resultHeaderOf(output)?.rest ?? output, res.data.is_error);
        }
      } else {
        countSkip(m.skipped, `user/${type}`);
        if (type === 'image') xml.open?.parts.push('[image]');
      }
    });
    closeOpen();
    const content = words.filter((w) => w !== '').join('\n\n');
    out.firstPrompt ??= content === '' ? undefined : content;
    entries.push(...results);
    if (content !== '') entries.push(messageEntry(m, 'user', messageId, orderSeq, content, time));
  });
  return out;
}

function callEntry(m: TaskMapping, call: Call, input: unknown, time: number | undefined): NewEntry {
  const data: JsonObject = { messageId: call.messageId, toolCallId: call.toolCallId, name: call.name, input: (input ?? null) as JsonObject[string] };
  // A speech tool's input is kept whole beside the words taken from it, as no call waiting for a result.
  if (call.speech) return agentEvent(m, 'tool_use', [call.messageId, call.toolCallId], data, time);
  return {
    kind: 'tool_call',
    name: call.name,
    provenanceKey: sourceKey(m.sessionId, 'tool_call', call.messageId, call.toolCallId),
    payload: data,
    ...createdAtOf(time),
  };
}
