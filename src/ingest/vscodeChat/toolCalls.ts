import * as z from 'zod';
import type { NewEntry } from '../../tape/entry';
import { createdAtOf, sourceKey } from '../format';
import { sourceId, textOfMessage, uriText } from './chatData';

/**
 * A request's tool calls, paired with their results. VS Code stores each call the participant
 * ran as a `toolInvocationSerialized` response part (IChatToolInvocationSerialized in
 * chatService.ts): the tool, its input and output when the tool reported them (`resultDetails`,
 * `toolSpecificData`), whether it completed. Copilot Chat also keeps, in the request's
 * `result.metadata`, the model's own tool-call rounds (`toolCallRounds`: each round's calls with
 * their names and JSON arguments) and what each call returned to the model (`toolCallResults`,
 * keyed by call id). When rounds are there, the model's calls are theirs, each joined with the
 * invocation part of the same call for what only that part says (its messages, its tool id,
 * whether it ran); parts no round names (another participant's, a subagent's) are calls of their own.
 */

const opt = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

export const toolInvocation = z.looseObject({
  kind: z.enum(['toolInvocationSerialized', 'toolInvocation']),
  toolCallId: sourceId,
  toolId: sourceId,
  invocationMessage: opt(z.unknown()),
  pastTenseMessage: opt(z.unknown()),
  resultDetails: opt(z.unknown()),
  toolSpecificData: opt(z.looseObject({ kind: z.string() })),
  isComplete: opt(z.boolean()),
  isConfirmed: opt(z.unknown()),
  subAgentInvocationId: opt(z.string()),
});
export type ToolInvocation = z.infer<typeof toolInvocation>;

const roundCall = z.looseObject({ id: sourceId, name: sourceId, arguments: opt(z.string()) });
const round = z.looseObject({ toolCalls: z.array(z.unknown()), timestamp: opt(z.number().finite().positive()) });
const roundsMetadata = z.looseObject({ toolCallRounds: opt(z.array(z.unknown())), toolCallResults: opt(z.looseObject({})) });

/** A JSON arguments text as its value, so the tape holds the input the tool got; else the text. */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const terminalData = z.looseObject({
  kind: z.literal('terminal'),
  command: opt(z.string()),
  commandLine: opt(z.looseObject({ original: opt(z.string()), userEdited: opt(z.string()), toolEdited: opt(z.string()) })),
  terminalCommandOutput: opt(z.looseObject({ text: z.string() })),
  terminalCommandState: opt(z.looseObject({ exitCode: opt(z.number()) })),
});
const subagentData = z.looseObject({
  kind: z.literal('subagent'),
  description: opt(z.string()),
  agentName: opt(z.string()),
  prompt: opt(z.string()),
  result: opt(z.string()),
  modelName: opt(z.string()),
});
export type SubagentData = z.infer<typeof subagentData>;
const inputData = z.looseObject({ kind: z.literal('input'), rawInput: z.unknown() });
const simpleData = z.looseObject({ kind: z.literal('simpleToolInvocation'), input: opt(z.string()), output: opt(z.string()) });
const inputOutput = z.looseObject({ input: z.string(), output: z.union([z.string(), z.array(z.unknown())]), isError: opt(z.boolean()) });
const outputPart = z.looseObject({ type: opt(z.string()), value: opt(z.string()), isText: opt(z.boolean()), mimeType: opt(z.string()), uri: opt(z.unknown()) });
const dataOutput = z.looseObject({ output: z.looseObject({ type: z.literal('data'), mimeType: z.string(), base64Data: opt(z.string()) }) });

/** The runSubagent call's data (prompt, result, agent), when `inv` started a subagent. */
export const subagentOf = (inv: ToolInvocation): SubagentData | undefined => subagentData.safeParse(inv.toolSpecificData).data;

/** The input an invocation part records: the tool's reported input, else what its tool-specific data says. */
function inputOf(inv: ToolInvocation): unknown {
  const io = inputOutput.safeParse(inv.resultDetails);
  if (io.success) return jsonOr(io.data.input);
  const data = inv.toolSpecificData;
  const raw = inputData.safeParse(data);
  if (raw.success) return raw.data.rawInput ?? null;
  const terminal = terminalData.safeParse(data);
  if (terminal.success) {
    const c = terminal.data.commandLine;
    const command = c?.userEdited ?? c?.toolEdited ?? c?.original ?? terminal.data.command;
    return command === undefined ? null : { command };
  }
  const sub = subagentData.safeParse(data);
  if (sub.success) return { description: sub.data.description, agentName: sub.data.agentName, prompt: sub.data.prompt };
  const simple = simpleData.safeParse(data);
  if (simple.success && simple.data.input !== undefined) return jsonOr(simple.data.input);
  return null;
}

/** A binary output part as a short note of what it was (the bytes stay out of the tape). */
const dataNote = (mimeType: string | undefined, base64: string | undefined): string =>
  `[${mimeType ?? 'binary'} data${base64 === undefined ? '' : `, ${Math.floor((base64.length * 3) / 4)} bytes`}]`;

/** What an invocation part says the tool returned, and whether that was an error. */
function outputOf(inv: ToolInvocation): { output: string; error: boolean } | undefined {
  const io = inputOutput.safeParse(inv.resultDetails);
  if (io.success) {
    const { output } = io.data;
    const text =
      typeof output === 'string'
        ? output
        : output
            .map((p) => {
              const part = outputPart.safeParse(p).data;
              if (part === undefined) return '';
              if (part.type === 'ref') return uriText(part.uri) ?? '';
              return part.isText === true ? (part.value ?? '') : dataNote(part.mimeType, part.value);
            })
            .join('\n');
    return { output: text, error: io.data.isError === true };
  }
  const data = dataOutput.safeParse(inv.resultDetails);
  if (data.success) return { output: dataNote(data.data.output.mimeType, data.data.output.base64Data), error: false };
  if (Array.isArray(inv.resultDetails)) {
    // A tool that reports the files or places it touched.
    return { output: inv.resultDetails.map((u) => uriText((u as { uri?: unknown } | null)?.uri ?? u) ?? '').join('\n'), error: false };
  }
  const terminal = terminalData.safeParse(inv.toolSpecificData);
  if (terminal.success && terminal.data.terminalCommandOutput) {
    const exitCode = terminal.data.terminalCommandState?.exitCode;
    return { output: terminal.data.terminalCommandOutput.text, error: exitCode !== undefined && exitCode !== 0 };
  }
  const sub = subagentData.safeParse(inv.toolSpecificData);
  if (sub.success && sub.data.result !== undefined) return { output: sub.data.result, error: false };
  const simple = simpleData.safeParse(inv.toolSpecificData);
  if (simple.success && simple.data.output !== undefined) return { output: simple.data.output, error: false };
  return undefined;
}

/** ToolConfirmKind (chatService.ts) Denied and Skipped; pre-1.104 files say `false` for a denial. */
const DENIED = 0;
const SKIPPED = 5;

/** Why an invocation part's call did not run to its end, or undefined when it did. */
function notRun(inv: ToolInvocation): string | undefined {
  const confirmed = inv.isConfirmed;
  const type = typeof confirmed === 'object' && confirmed !== null ? (confirmed as { type?: unknown }).type : undefined;
  if (confirmed === false || type === DENIED) return 'The user denied this tool call.';
  if (type === SKIPPED) return 'The tool call was skipped.';
  if (inv.isComplete === false) return 'The tool call did not complete.';
  return undefined;
}

/**
 * A tool result's content as Copilot Chat keeps it (a serialised LanguageModelToolResult:
 * `{content: [{value}]}`, text parts with a string value, prompt-tsx parts with a tree whose
 * leaves hold the text): the text the model was given.
 */
function textOfToolResult(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) => {
      const value = (part as { value?: unknown } | null)?.value;
      if (typeof value === 'string') return value;
      const mimeType = (part as { mimeType?: unknown }).mimeType;
      if (typeof mimeType === 'string') return dataNote(mimeType, undefined);
      return leafTexts(value).join('');
    })
    .join('\n');
}

/** The `text` strings of a prompt-tsx tree, in order (without recursion: the tree comes from a file). */
function leafTexts(tree: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    const text = (node as { text?: unknown }).text;
    if (typeof text === 'string') out.push(text);
    const children = Array.isArray(node) ? node : Object.values(node).filter((v) => typeof v === 'object');
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

export interface ToolCallContext {
  /** The tape session. */
  sessionId: string;
  requestId: string;
  /** The assistant message the calls belong to. */
  messageId: string;
  /** The request's time, for calls the source gives no time of their own. */
  timestamp: number | undefined;
}

/** A call as the tape keeps it: the model's id, name and input, and what its invocation part shows. */
interface CallData {
  toolCallId: string;
  name: string;
  input: unknown;
  /** The invocation part's messages: while it ran, and once it was done. */
  title?: string;
  pastTense?: string;
  toolId?: string;
}

/** One call and its result as entries, keyed by the request and the call's id. */
function pairEntries(ctx: ToolCallContext, call: CallData, result: { output: string; error: boolean }, timestamp: number | undefined): NewEntry[] {
  const { sessionId, requestId, messageId } = ctx;
  const at = createdAtOf(timestamp ?? ctx.timestamp);
  const extra = {
    ...(call.title === undefined ? {} : { title: call.title }),
    ...(call.pastTense === undefined || call.pastTense === call.title ? {} : { pastTense: call.pastTense }),
    ...(call.toolId === undefined || call.toolId === call.name ? {} : { toolId: call.toolId }),
  };
  return [
    {
      kind: 'tool_call',
      name: call.name,
      provenanceKey: sourceKey(sessionId, 'tool_call', requestId, call.toolCallId),
      payload: { messageId, toolCallId: call.toolCallId, name: call.name, input: (call.input ?? null) as NewEntry['payload'][string], ...extra },
      ...at,
    },
    {
      kind: 'tool_result',
      name: call.name,
      provenanceKey: sourceKey(sessionId, 'tool_result', requestId, call.toolCallId),
      payload: { messageId, toolCallId: call.toolCallId, status: result.error ? 'error' : 'ok', output: result.output },
      ...at,
    },
  ];
}

/** What an invocation part shows of its call, beside the call itself. */
const shownBy = (inv: ToolInvocation): Pick<CallData, 'title' | 'pastTense'> => ({
  title: textOfMessage(inv.invocationMessage),
  pastTense: textOfMessage(inv.pastTenseMessage),
});

/** The result of a call the source keeps none for (a completed request's call cut short by a cancel). */
const NO_RESULT = { output: 'VS Code kept no result for this tool call.', error: true };

/** The result an invocation part gives its call: its output, why it did not run, or the message it ended with. */
function resultOfInvocation(inv: ToolInvocation): { output: string; error: boolean } {
  const why = notRun(inv);
  if (why !== undefined) return { output: why, error: true };
  return outputOf(inv) ?? { output: textOfMessage(inv.pastTenseMessage) ?? textOfMessage(inv.invocationMessage) ?? '', error: false };
}

/** A tool's name reduced to compare Copilot's name for the model (`read_file`) with VS Code's tool id (`copilot_readFile`). */
const toolKey = (name: string): string =>
  name
    .replace(/^copilot_/, '')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();

/**
 * The invocation part of each round call, by the call's id. VS Code keys a part by the id Copilot
 * gave it (the round's id without the `__vscode…` suffix Copilot adds to keep ids unique); files
 * written before VS Code took that id hold an id of VS Code's own instead. The parts no id names
 * are then the rounds' other calls in the same order, one each, when as many are left on both
 * sides; else each is the next left call of the same tool.
 */
function partsOfCalls(calls: readonly { id: string; name: string }[], invocations: readonly ToolInvocation[]): Map<string, ToolInvocation> {
  const byId = new Map(invocations.map((inv) => [inv.toolCallId, inv] as const));
  const out = new Map<string, ToolInvocation>();
  const taken = new Set<ToolInvocation>();
  for (const { id } of calls) {
    const inv = byId.get(id) ?? byId.get(id.split('__vscode')[0]);
    if (inv === undefined || taken.has(inv)) continue;
    out.set(id, inv);
    taken.add(inv);
  }
  const calledLeft = calls.filter((c) => !out.has(c.id));
  const partsLeft = invocations.filter((inv) => !taken.has(inv));
  if (calledLeft.length === partsLeft.length) {
    calledLeft.forEach((c, i) => out.set(c.id, partsLeft[i]));
    return out;
  }
  for (const c of calledLeft) {
    const at = partsLeft.findIndex((inv) => toolKey(inv.toolId) === toolKey(c.name));
    if (at >= 0) out.set(c.id, partsLeft.splice(at, 1)[0]);
  }
  return out;
}

/**
 * The tool_call and tool_result entries of a request: the rounds' calls (when `metadata` has
 * rounds), each with its stored result, then the invocation parts no round call has, in response order.
 */
export function toolCallEntries(ctx: ToolCallContext, metadata: unknown, invocations: readonly ToolInvocation[], skipped: (type: string) => void): NewEntry[] {
  const out: NewEntry[] = [];
  const meta = roundsMetadata.safeParse(metadata).data;
  const results = (meta?.toolCallResults ?? {}) as Record<string, unknown>;
  const calls: (z.infer<typeof roundCall> & { timestamp: number | undefined })[] = [];
  const seen = new Set<string>();
  for (const r of meta?.toolCallRounds ?? []) {
    const parsedRound = round.safeParse(r);
    if (!parsedRound.success) {
      skipped('result/tool-call-round');
      continue;
    }
    for (const c of parsedRound.data.toolCalls) {
      const call = roundCall.safeParse(c);
      if (!call.success) skipped('result/tool-call');
      else if (!seen.has(call.data.id)) {
        seen.add(call.data.id);
        calls.push({ ...call.data, timestamp: parsedRound.data.timestamp });
      }
    }
  }
  // A part VS Code kept twice under one id is one call: its latest state.
  const unique = [...new Map(invocations.map((inv) => [inv.toolCallId, inv] as const)).values()];
  const parts = partsOfCalls(calls, unique);
  for (const { id, name, arguments: args, timestamp } of calls) {
    const inv = parts.get(id);
    const input = args === undefined ? (inv === undefined ? null : inputOf(inv)) : jsonOr(args);
    const stored = Object.hasOwn(results, id) ? textOfToolResult(results[id]) : undefined;
    const fromPart = inv === undefined ? undefined : resultOfInvocation(inv);
    const result = stored !== undefined ? { output: stored, error: fromPart?.error ?? false } : (fromPart ?? NO_RESULT);
    const shown = inv === undefined ? {} : { ...shownBy(inv), toolId: inv.toolId };
    out.push(...pairEntries(ctx, { toolCallId: id, name, input, ...shown }, result, timestamp));
  }
  const joined = new Set(parts.values());
  for (const inv of unique) {
    if (joined.has(inv)) continue;
    out.push(...pairEntries(ctx, { toolCallId: inv.toolCallId, name: inv.toolId, input: inputOf(inv), ...shownBy(inv) }, resultOfInvocation(inv), undefined));
  }
  return out;
}
