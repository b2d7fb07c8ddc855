import * as z from 'zod';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { countSkip, createdAtOf, sourceKey } from '../format';
import type { RequestFigures } from './requests';
import { agentEvent, digestOf, isObject, messageEntry, type TaskMapping } from './taskMapping';

/**
 * `ui_messages.json`: the chat as the extension shows it, ClineMessage `{ts, type: 'ask'|'say',
 * ask?, say?, text?, partial?, …}`. Each model request is a `say: api_req_started` whose text is
 * JSON (ClineApiReqInfo: tokensIn, tokensOut, cacheWrites, cacheReads, cost, cancelReason), filled
 * in as the response streams; in Claude Dev (Cline before 2.0, 2024) an `api_req_finished` after it carried them.
 * Checkpoints are `checkpoint_created` (Cline, the commit in `lastCheckpointHash`) or
 * `checkpoint_saved` (Roo Code, Kilo Code: the commit as text). When the task has its API history
 * the conversation is read from there and the chat's copies of it are counted as skipped; a task
 * with only this file has its conversation read from it.
 */

const n = z.number().finite().nonnegative().optional();
const uiMessage = z.looseObject({
  ts: z.number().finite(),
  type: z.string(),
  ask: z.string().optional(),
  say: z.string().optional(),
  text: z.string().optional(),
  reasoning: z.string().optional(),
  partial: z.boolean().optional(),
  lastCheckpointHash: z.string().optional(),
  checkpoint: z.looseObject({ from: z.string().optional(), to: z.string().optional() }).optional(),
  contextCondense: z.looseObject({}).optional(),
  contextTruncation: z.looseObject({}).optional(),
  modelInfo: z.looseObject({ modelId: z.string().optional() }).optional(),
  images: z.array(z.unknown()).optional(),
});
type UiMessage = z.infer<typeof uiMessage>;

const requestInfo = z.looseObject({
  tokensIn: n,
  tokensOut: n,
  cacheWrites: n,
  cacheReads: n,
  cost: n,
  cancelReason: z.string().optional(),
  streamingFailedMessage: z.string().optional(),
});

/** Say types whose figures are requests: Cline folds requests removed from the chat into one `deleted_api_reqs`, and a batch of subagents' into `subagent_usage`. */
const AGGREGATES: Readonly<Record<string, RequestFigures['aggregate']>> = { deleted_api_reqs: 'deleted_api_reqs', subagent_usage: 'subagents' };

/** Asks the agent waits at once its request is done: the request's figures are final. */
const IDLE_ASKS = new Set([
  'completion_result',
  'followup',
  'plan_mode_respond',
  'act_mode_respond',
  'resume_task',
  'resume_completed_task',
  'api_req_failed',
  'mistake_limit_reached',
  'auto_approval_max_req_reached',
  'payment_required_prompt',
  'invalid_model',
]);

const ERRORS = new Set(['error', 'diff_error', 'condense_context_error', 'clineignore_error', 'rooignore_error', 'api_req_failed', 'mistake_limit_reached']);

/** A chat untouched this long is not streaming: its last request's figures are final. */
export const SETTLED_AFTER_MS = 60_000;

export interface UiMapped {
  entries: NewEntry[];
  /** The requests whose figures are final, in order. */
  requests: RequestFigures[];
  /** The task as the person typed it (the first `say: task`). */
  task?: string;
  firstTs?: number;
  /** The model the chat names last (Cline's `modelInfo`). */
  model?: string;
}

function jsonOf(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** Text that may be JSON naming the words under `key` (a followup's `question`, a plan's `response`), else the text. */
function wordsOf(text: string | undefined, key: string): string {
  const value = jsonOf(text);
  return isObject(value) && typeof value[key] === 'string' ? value[key] : (text ?? '');
}

const kindOf = (u: UiMessage): string => `${u.type}/${u.ask ?? u.say ?? 'none'}`;

/**
 * The chat's entries and requests. `transcript` says whether the conversation is read from the
 * chat (no API history); `answeredAt` whether the API history holds the answer to a request
 * started at a time (its figures are then final); `now` is the time of this read.
 */
export function mapUiMessages(
  m: TaskMapping,
  list: readonly unknown[],
  opts: { transcript: boolean; answeredAt: (ts: number) => boolean; modifiedAt?: number; now: number },
): UiMapped {
  const out: UiMapped = { entries: [], requests: [] };
  const entries = out.entries;
  const messages = list.flatMap((raw) => {
    const u = uiMessage.safeParse(raw);
    if (!u.success) countSkip(m.skipped, 'ui/invalid');
    return u.success ? [u.data] : [];
  });
  const last = messages.at(-1);
  const idle =
    (last?.type === 'ask' && last.partial !== true && IDLE_ASKS.has(last.ask ?? '')) ||
    (opts.modifiedAt !== undefined && opts.now - opts.modifiedAt >= SETTLED_AFTER_MS);
  const lastStarted = messages.map((u) => u.say).lastIndexOf('api_req_started');
  // A command's call waits for its output, which may come in several messages.
  let command: { ts: number; output: string[] } | null = null;
  const endCommand = (): void => {
    if (command !== null && command.output.length > 0) {
      const toolCallId = `command-${command.ts}`;
      entries.push({
        kind: 'tool_result',
        name: 'execute_command',
        provenanceKey: sourceKey(m.sessionId, 'tool_result', toolCallId, digestOf(command.output)),
        payload: { messageId: `ui-${command.ts}`, toolCallId, status: 'ok', output: command.output.join('\n') },
        ...createdAtOf(command.ts),
      });
    }
    command = null;
  };
  let model: string | undefined;

  messages.forEach((u, index) => {
    out.firstTs ??= u.ts;
    if (u.modelInfo?.modelId) model = u.modelInfo.modelId;
    const kind = kindOf(u);
    const what = u.ask ?? u.say ?? '';
    if (what === 'command_output' && command !== null) return void command.output.push(u.text ?? '');
    endCommand();
    const messageId = `ui-${u.ts}`;
    const say = (role: 'user' | 'assistant', text: string): void => {
      if (text.trim() !== '') entries.push(messageEntry(m, role, messageId, u.ts, text, u.ts));
      if (u.images?.length) countSkip(m.skipped, 'ui/image', u.images.length);
    };

    if (u.say === 'api_req_started') {
      const info = requestInfo.safeParse(jsonOf(u.text)).data ?? {};
      const figures: RequestFigures = { ts: u.ts, ...info, ...(u.modelInfo?.modelId ? { model: u.modelInfo.modelId } : {}) };
      const later = messages.slice(index + 1);
      // Claude Dev wrote the figures in an api_req_finished of their own.
      const finished = later.find((l) => l.say === 'api_req_finished' || l.say === 'api_req_started');
      if (finished?.say === 'api_req_finished') Object.assign(figures, requestInfo.safeParse(jsonOf(finished.text)).data ?? {});
      const settled = info.cancelReason !== undefined || info.streamingFailedMessage !== undefined || index < lastStarted || idle || opts.answeredAt(u.ts);
      const hasFigures = [figures.tokensIn, figures.tokensOut, figures.cacheReads, figures.cacheWrites, figures.cost].some((v) => v !== undefined);
      if (settled && hasFigures) out.requests.push(figures);
      else if (settled) countSkip(m.skipped, 'ui/say/api_req_started_without_figures');
      return;
    }
    if (u.say === 'api_req_finished') return;
    const aggregate = Object.hasOwn(AGGREGATES, what) && u.type === 'say' ? AGGREGATES[what] : undefined;
    if (aggregate !== undefined) {
      const info = requestInfo.safeParse(jsonOf(u.text));
      if (info.success) out.requests.push({ ts: u.ts, ...info.data, aggregate });
      else countSkip(m.skipped, kind);
      return;
    }
    if (u.say === 'checkpoint_created' || u.say === 'checkpoint_saved') {
      // Cline adds the commit to its message once it is made; until then there is no checkpoint to name.
      const hash = u.lastCheckpointHash ?? u.checkpoint?.to ?? u.text;
      if (hash === undefined || hash === '') return countSkip(m.skipped, `${kind}_without_commit`);
      const data: JsonObject = { commit: hash, ...(u.checkpoint?.from !== undefined ? { from: u.checkpoint.from } : {}) };
      entries.push(agentEvent(m, 'checkpoint', [u.ts, hash], data, u.ts));
      return;
    }
    if (u.say === 'condense_context' && u.contextCondense) return void entries.push(agentEvent(m, 'condense', [u.ts], u.contextCondense as JsonObject, u.ts));
    if (u.say === 'sliding_window_truncation' && u.contextTruncation)
      return void entries.push(agentEvent(m, 'context_truncation', [u.ts], u.contextTruncation as JsonObject, u.ts));
    if (u.say === 'subtask_result') return void entries.push(agentEvent(m, 'subtask_result', [u.ts], { text: u.text ?? '' }, u.ts));
    if (ERRORS.has(what) && (u.text ?? '') !== '') return void entries.push(agentEvent(m, 'error', [u.ts], { kind, text: u.text ?? '' }, u.ts));
    // Cline opens the chat with `say: task`; Roo Code and Kilo Code with the task as `say: text`.
    const isTask = u.say === 'task' || (index === 0 && u.say === 'text');
    if (isTask) out.task ??= u.text;
    if (!opts.transcript) return countSkip(m.skipped, `ui/${kind}`);

    // A task with no API history: its conversation as the chat shows it.
    if (isTask || u.say === 'user_feedback') say('user', u.text ?? '');
    else if (u.say === 'text' || u.say === 'completion_result') say('assistant', u.text ?? '');
    else if (u.ask === 'followup') say('assistant', wordsOf(u.text, 'question'));
    else if (u.ask === 'plan_mode_respond' || u.ask === 'act_mode_respond') say('assistant', wordsOf(u.text, 'response'));
    else if (u.say === 'reasoning') entries.push(agentEvent(m, 'thinking', [messageId], { text: u.text ?? u.reasoning ?? '' }, u.ts));
    else if (what === 'command') {
      const toolCallId = `command-${u.ts}`;
      entries.push(messageEntry(m, 'assistant', messageId, u.ts, '', u.ts), {
        kind: 'tool_call',
        name: 'execute_command',
        provenanceKey: sourceKey(m.sessionId, 'tool_call', toolCallId),
        payload: { messageId, toolCallId, name: 'execute_command', input: { command: u.text ?? '' } },
        ...createdAtOf(u.ts),
      });
      command = { ts: u.ts, output: [] };
    } else if (
      what === 'tool' ||
      what === 'use_mcp_server' ||
      what === 'mcp_server_response' ||
      what === 'browser_action' ||
      what === 'browser_action_result'
    ) {
      // The chat shows what a tool did, not what it returned to the model: kept as what it is.
      const value = jsonOf(u.text);
      entries.push(agentEvent(m, 'ui_tool', [u.ts], { kind, ...(isObject(value) ? { tool: value as JsonObject } : { text: u.text ?? '' }) }, u.ts));
    } else countSkip(m.skipped, `ui/${kind}`);
  });
  endCommand();
  if (model !== undefined) out.model = model;
  return out;
}
