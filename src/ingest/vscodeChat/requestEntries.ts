import { ATTEMPT_EVENT } from '../../tape/entryNames';
import type { JsonObject, NewEntry } from '../../tape/entry';
import { createdAtOf, eventEntry, sessionMetaEntry, sourceKey, subagentLinkEntry, type MappedSession } from '../format';
import { OPENAI_BASIS, tapeUsage } from '../tapeUsage';
import { RESPONSE_CANCELLED, RESPONSE_FAILED, sourceId, uriText, type ChatRequest } from './chatData';
import { readResponse } from './responseParts';
import { subagentOf, toolCallEntries, type ToolInvocation } from './toolCalls';

/**
 * One completed request of a VS Code chat (ISerializableChatRequestData): the user's message, the
 * answer, the tool calls with their results, what was referenced and edited, and the model's
 * token figures. Keys come from the request's id (and a call's id, a part's index in the
 * response), so a session read again appends only the requests that are new.
 */

export const ERROR_EVENT = 'vscode-chat/error';
export const REFERENCES_EVENT = 'vscode-chat/references';
export const VARIABLES_EVENT = 'vscode-chat/variables';

export interface RequestPlace {
  /** The tape session. */
  sessionId: string;
  /** The session file, for a subagent's session/meta. */
  source: string;
  /** The user message's orderSeq; the answer's is the next. */
  orderSeq: number;
  /** When the request was sent (epoch ms), or the session's time when the file has none. */
  timestamp: number | undefined;
}

export interface MappedRequest {
  entries: NewEntry[];
  /** Subagents' sessions, linked from `entries`. */
  children: MappedSession[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMarkdownPart = (p: unknown): boolean =>
  typeof p === 'string' || (isObject(p) && (p.kind === undefined ? typeof p.value === 'string' : p.kind === 'markdownContent'));

/** The response parts VS Code shows: after an undo, those before the undo stop it went back to. */
function shownParts(req: ChatRequest): { index: number; part: unknown }[] {
  const response = typeof req.response === 'string' ? [req.response] : (req.response ?? []);
  const parts = response.map((part, index) => ({ index, part }));
  const stop = req.shouldBeRemovedOnSend?.afterUndoStop;
  if (stop === undefined) return parts;
  let at = response.findIndex((p) => isObject(p) && p.kind === 'undoStop' && p.id === stop);
  if (at < 0) return parts;
  // As VS Code's ResponseView: the stop sits before a code block's URI, after the markdown opening its fence.
  if (isObject(response[at + 1]) && (response[at + 1] as { kind?: unknown }).kind === 'codeblockUri' && isMarkdownPart(response[at - 1])) at--;
  return parts.slice(0, at);
}

/** A variable (an attachment, a #-reference) as what it names, without its content. */
function variableOf(v: unknown): JsonObject | null {
  if (!isObject(v)) return null;
  const value = v.value;
  const uri = uriText(isObject(value) && 'uri' in value ? value.uri : value);
  const out: JsonObject = {};
  for (const k of ['id', 'name', 'kind', 'modelDescription'] as const) if (typeof v[k] === 'string') out[k] = v[k];
  if (uri !== undefined && uri !== '' && typeof value !== 'string') out.uri = uri;
  return Object.keys(out).length > 0 ? out : null;
}

/** What a content reference (IChatContentReference) points at: a file, a place in one, a variable's value. */
function referenceTarget(r: unknown): string | undefined {
  const ref = isObject(r) ? r.reference : undefined;
  if (typeof ref === 'string') return ref;
  if (!isObject(ref)) return undefined;
  if (typeof ref.variableName === 'string') return uriText(isObject(ref.value) && 'uri' in ref.value ? ref.value.uri : ref.value) ?? `#${ref.variableName}`;
  return uriText('uri' in ref && 'range' in ref ? ref.uri : ref);
}

/** The model's token figures VS Code stored for the request: per model when the provider reported whole-turn totals. */
function usageOf(req: ChatRequest): { model: string | undefined; usage: JsonObject }[] {
  if (req.modelTotals !== undefined && req.modelTotals.length > 0)
    return req.modelTotals.map((t) => ({
      model: t.model,
      usage: tapeUsage({ input: t.inputTokens, output: t.outputTokens, cacheRead: t.cachedTokens }, OPENAI_BASIS),
    }));
  const promptTokens = req.promptTokens ?? req.usage?.promptTokens;
  const completionTokens = req.completionTokens ?? req.usage?.completionTokens;
  // The model that served a request sent to a meta-model ("auto").
  const model = req.usage?.actualModelId ?? req.modelId;
  // A request names its model but no figures when the provider reported none: still one model request.
  if (promptTokens === undefined && completionTokens === undefined) return model === undefined ? [] : [{ model, usage: {} }];
  return [{ model, usage: tapeUsage({ input: promptTokens ?? 0, output: completionTokens ?? 0 }, OPENAI_BASIS) }];
}

/** The model calls a Copilot Chat request made: one per tool-call round. */
function roundsOf(metadata: unknown): number | undefined {
  const rounds = isObject(metadata) ? metadata.toolCallRounds : undefined;
  return Array.isArray(rounds) ? rounds.length : undefined;
}

/** A subagent's session: the prompt it was given, its tool calls, what it answered; linked from the call that started it. */
function subagentSession(
  place: RequestPlace,
  req: ChatRequest,
  id: string,
  started: ToolInvocation | undefined,
  parts: { index: number; part: unknown }[],
  skipped: (type: string) => void,
): { session: MappedSession; link: NewEntry } {
  // Named as the store knows an ingested child by its name (forks.ts): `<parent>/agent-<id>`.
  const sessionId = `${place.sessionId}/agent-${id}`;
  const data = started === undefined ? undefined : subagentOf(started);
  const messageId = `${id}/answer`;
  const ctx = { sessionId, requestId: req.requestId, messageId, timestamp: place.timestamp };
  const read = readResponse(ctx, parts, skipped);
  const at = createdAtOf(place.timestamp);
  const message = (role: 'user' | 'assistant', mId: string, orderSeq: number, content: string): NewEntry => ({
    kind: 'message',
    name: `message/${role}`,
    provenanceKey: sourceKey(sessionId, 'message', req.requestId, mId),
    payload: { messageId: mId, role, status: 'sent', orderSeq, content },
    ...at,
  });
  const title = data?.description ?? data?.agentName;
  const entries: NewEntry[] = [
    sessionMetaEntry(
      sessionId,
      { agent: 'vscode-chat', model: data?.modelName ?? req.modelId, source: place.source, title, parentSessionId: place.sessionId },
      place.timestamp,
    ),
  ];
  if (data?.prompt !== undefined) entries.push(message('user', `${id}/prompt`, place.orderSeq, data.prompt));
  entries.push(message('assistant', messageId, place.orderSeq + 1, data?.result ?? read.text));
  entries.push(...read.events, ...toolCallEntries(ctx, undefined, read.invocations, skipped));
  const link = subagentLinkEntry(place.sessionId, id, { childSessionId: sessionId, ...(started ? { toolCallId: started.toolCallId } : {}) }, place.timestamp);
  return { session: { sessionId, entries }, link };
}

/** The entries of one completed request, and its subagents' sessions. */
export function requestEntries(req: ChatRequest, place: RequestPlace, skipped: (type: string) => void): MappedRequest {
  const { sessionId, orderSeq, timestamp } = place;
  const { requestId } = req;
  const at = createdAtOf(timestamp);
  const entries: NewEntry[] = [];
  const text = typeof req.message === 'string' ? req.message : req.message?.text;
  if (text === undefined) skipped('request/without-message');
  else
    entries.push({
      kind: 'message',
      name: 'message/user',
      provenanceKey: sourceKey(sessionId, 'message', requestId, 'user'),
      payload: { messageId: requestId, role: 'user', status: 'sent', orderSeq, content: text },
      ...at,
    });
  const variables = (req.variableData?.variables ?? []).flatMap((v) => variableOf(v) ?? []);
  if (variables.length > 0)
    entries.push(eventEntry(VARIABLES_EVENT, sourceKey(sessionId, VARIABLES_EVENT, requestId), { messageId: requestId, variables }, timestamp));

  // A subagent's own calls carry the id of the call that started it; they are its session's.
  const main: { index: number; part: unknown }[] = [];
  const bySubagent = new Map<string, { index: number; part: unknown }[]>();
  for (const p of shownParts(req)) {
    const owner = isObject(p.part) ? p.part.subAgentInvocationId : undefined;
    if (typeof owner === 'string' && sourceId.safeParse(owner).success) bySubagent.set(owner, [...(bySubagent.get(owner) ?? []), p]);
    else main.push(p);
  }
  const messageId = req.responseId ?? `${requestId}/response`;
  const responseAt = req.responseTimestamp ?? timestamp;
  const ctx = { sessionId, requestId, messageId, timestamp: responseAt };
  const read = readResponse(ctx, main, skipped);
  const state =
    req.modelState?.value === RESPONSE_CANCELLED || req.isCanceled === true ? 'cancelled' : req.modelState?.value === RESPONSE_FAILED ? 'failed' : undefined;
  const agent = req.agent?.id;
  entries.push({
    kind: 'message',
    name: 'message/assistant',
    provenanceKey: sourceKey(sessionId, 'message', requestId, 'response'),
    payload: {
      messageId,
      role: 'assistant',
      status: 'sent',
      orderSeq: orderSeq + 1,
      content: read.text,
      ...(agent === undefined ? {} : { agent }),
      ...(req.modelId === undefined ? {} : { model: req.modelId }),
      ...(state === undefined ? {} : { state }),
    },
    ...createdAtOf(responseAt),
  });
  const metadata = req.result?.metadata;
  entries.push(...read.events, ...toolCallEntries(ctx, metadata, read.invocations, skipped));

  const children: MappedSession[] = [];
  const subagentIds = new Set([...read.invocations.filter((inv) => subagentOf(inv) !== undefined).map((inv) => inv.toolCallId), ...bySubagent.keys()]);
  for (const id of subagentIds) {
    const started = read.invocations.find((inv) => inv.toolCallId === id);
    const { session, link } = subagentSession(place, req, id, started, bySubagent.get(id) ?? [], skipped);
    children.push(session);
    entries.push(link);
  }

  const errorDetails = req.result?.errorDetails;
  if (errorDetails !== undefined)
    entries.push(eventEntry(ERROR_EVENT, sourceKey(sessionId, ERROR_EVENT, requestId), { messageId, ...(errorDetails as JsonObject) }, responseAt));
  const references = [
    ...new Set([
      ...(req.contentReferences ?? []).flatMap((r) => referenceTarget(r) ?? []),
      ...read.references,
      ...(req.codeCitations ?? []).flatMap((c) => uriText(isObject(c) ? c.value : undefined) ?? []),
    ]),
  ];
  const editedFiles = (req.editedFileEvents ?? []).flatMap((e) =>
    isObject(e) && uriText(e.uri) !== undefined ? [{ uri: uriText(e.uri) as string, eventKind: e.eventKind as JsonObject[string] }] : [],
  );
  if (references.length > 0 || editedFiles.length > 0)
    entries.push(
      eventEntry(
        REFERENCES_EVENT,
        sourceKey(sessionId, REFERENCES_EVENT, requestId),
        { messageId, references, ...(editedFiles.length > 0 ? { editedFiles } : {}) },
        responseAt,
      ),
    );

  const modelCalls = roundsOf(metadata);
  usageOf(req).forEach(({ model, usage }, i) => {
    const data: JsonObject = { messageId, model: model ?? 'unknown', usage };
    if (agent !== undefined) data.agent = agent;
    if (modelCalls !== undefined) data.modelCalls = modelCalls;
    if (req.elapsedMs !== undefined) data.elapsedMs = req.elapsedMs;
    const credits = req.copilotCredits ?? req.usage?.copilotCredits;
    if (credits !== undefined) data.copilotCredits = credits;
    entries.push(eventEntry(ATTEMPT_EVENT, sourceKey(sessionId, ATTEMPT_EVENT, requestId, i), data, responseAt));
  });
  return { entries, children };
}
