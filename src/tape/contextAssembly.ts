import {
  buildContext,
  ContextSelectionError,
  contextInputFrom,
  promptMessageOf,
  resolveSelector,
  type ContextInput,
  type ContextMessage,
  type ContextRules,
  type ContextSelector,
  type GetEntry,
  WITH_AMENDMENTS,
} from './context';
import {
  BUILDER_VERSION,
  BUILDER_VERSION_BEFORE_AMENDMENTS,
  CONTEXT_TOOL_RESULT_MAX_BYTES,
  INCLUDED_REASONS,
  reserveFor,
  TAPE_CONTEXT_POLICY,
} from './contextPolicy';
import type { EffectiveView } from './fold';
import type { FoldCache } from './foldCache';
import { hashPrompt, includedOf, MANIFEST_SCHEMA_VERSION, sealManifest, toolsHashOf, type ExcludedItem, type ViewManifest } from './manifest';
import { toolsJsonOf, type ModelInfo, type ModelMessage, type ModelRequest, type ToolDefinition } from './modelRequest';
import { requestParamsOf, type SamplingOptions } from './requestParams';
import { utf8Prefix } from './utf8Prefix';

/** What a request is assembled with besides the view: its identity and the model's facts. */
export interface RequestFacts {
  sessionId: string;
  turnId: string;
  requestSeq: number;
  viewId: string;
  /** Recorded in the manifest but in no hash: a retry assembles the same request later. */
  assembledAt: number;
  getEntry: GetEntry;
  /** Defaults to `last`: from the reconstruction anchor in force. */
  selector?: ContextSelector;
  model: ModelInfo;
  tools: readonly ToolDefinition[];
  /** The host's sampling options, sent and recorded in the manifest's `params`; none by default. */
  sampling?: SamplingOptions;
  countTokens(input: string | readonly ModelMessage[]): number;
}

export interface AssemblyInput extends RequestFacts {
  /** The session folded without pending messages up to `latestEntryId`. */
  view: EffectiveView;
  latestEntryId: number;
}

export interface Assembly {
  request: ModelRequest;
  /**
   * Sealed. `tokenBudget.estimatedPrompt` counts the messages sent and the tool definitions; above
   * the input budget (`contextWindow - maxOutput - reserve`) it means even the kept minimum did not
   * fit, which is the caller's cue to compact.
   */
  manifest: ViewManifest;
}

const LAST: ContextSelector = { kind: 'last' };

/** A version of the code applying the policy: what it records as `builderVersion`, and what of the tape it honours. */
export interface Builder {
  version: string;
  rules: ContextRules;
}

export const CURRENT_BUILDER: Builder = { version: BUILDER_VERSION, rules: WITH_AMENDMENTS };
export const BUILDER_BEFORE_AMENDMENTS: Builder = { version: BUILDER_VERSION_BEFORE_AMENDMENTS, rules: { amendments: false } };

/**
 * Assembles a model request and its ViewManifest from the tape prefix the view folds: a pure
 * function of (tape prefix, policy version, model facts), so a replay rebuilds the same request and
 * the same hashes. A `between` selector that ends before the head needs rows the view has folded
 * past: use `assembleFromCache`, which folds that prefix.
 */
export function assembleRequest(input: AssemblyInput, builder: Builder = CURRENT_BUILDER): Assembly {
  const { anchorEntryId, toEntryId } = resolveSelector(input.view.anchors, input.selector ?? LAST, builder.rules);
  if (toEntryId !== null && toEntryId < input.view.headEntryId) {
    throw new ContextSelectionError(`a range ending at entry ${toEntryId} needs the fold up to it; assemble it with assembleFromCache`);
  }
  return assemble({ view: input.view, anchorEntryId }, input.latestEntryId, input, builder);
}

/**
 * The next request of a session from its cached fold: the cache folds only the entries appended
 * since the previous request, so a long session costs what is new plus what is sent.
 */
export function assembleFromCache(cache: FoldCache, facts: RequestFacts, builder: Builder = CURRENT_BUILDER): Assembly {
  const context = contextInputFrom(cache, facts.sessionId, facts.selector ?? LAST, builder.rules);
  return assemble(context, cache.source.headEntryId(facts.sessionId), facts, builder);
}

/** One message as sent, with what the manifest says of it. */
interface Item {
  message: ContextMessage;
  reason: string;
  tokens: number;
  kept: boolean;
}

/** The output as the context shows it, or null when it fits whole. */
function capToolOutput(content: string, entryId: number): string | null {
  // At most 3 UTF-8 bytes per UTF-16 unit: most outputs are known to fit without being measured.
  if (content.length * 3 <= CONTEXT_TOOL_RESULT_MAX_BYTES) return null;
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes <= CONTEXT_TOOL_RESULT_MAX_BYTES) return null;
  const note = `\n[output cut to ${CONTEXT_TOOL_RESULT_MAX_BYTES} of ${bytes} bytes in this context; the whole output is on the tape at entry ${entryId}]`;
  return utf8Prefix(content, CONTEXT_TOOL_RESULT_MAX_BYTES - note.length) + note;
}

function itemOf(m: ContextMessage, countTokens: RequestFacts['countTokens']): Item {
  let message = m;
  let reason: string = INCLUDED_REASONS.history;
  if (m.role === 'system') reason = INCLUDED_REASONS.systemPrompt;
  else if (m.pinned === true) {
    // Pinned verbatim, under the same cap as a tool result: one pinned file read must not fill the window.
    const capped = m.entryId === null ? null : capToolOutput(m.content, m.entryId);
    if (capped !== null) message = { ...m, content: capped };
    reason = INCLUDED_REASONS.pinned;
  } else if (m.source === 'synthetic') reason = m.toolCallId === undefined ? INCLUDED_REASONS.checkpoint : INCLUDED_REASONS.interrupted;
  else if (m.role === 'tool' && m.entryId !== null) {
    const capped = capToolOutput(m.content, m.entryId);
    if (capped !== null) {
      message = { ...m, content: capped };
      reason = INCLUDED_REASONS.capped;
    }
  }
  return { message, reason, tokens: countTokens([message]), kept: true };
}

// Tape bookkeeping (entry id, source) is not sent; absent tool fields stay absent.
/** Tool calls and results belong to the message before them: a group starts at each message that is neither. */
const startsGroup = (m: ContextMessage): boolean => m.toolCallId === undefined;

/**
 * Drops whole groups of history, oldest first, until the prompt fits `budget`. The system prompt
 * and the checkpoint come before `historyStart` and the group of the last user message is
 * `protectedStart`; none of them is ever dropped. Returns the prompt's tokens after fitting.
 */
function fit(items: Item[], historyStart: number, protectedStart: number, total: number, budget: number): number {
  let i = historyStart;
  while (total > budget && i < items.length) {
    let end = i + 1;
    while (end < items.length && !startsGroup(items[end].message)) end++;
    if (i !== protectedStart) {
      for (let k = i; k < end; k++) {
        items[k].kept = false;
        total -= items[k].tokens;
      }
    }
    i = end;
  }
  return total;
}

/**
 * The manifest's `excluded` lists the entries this policy dropped from the window it assembled
 * (after the anchor's cursor), each with its reason (`out_of_budget`). It does not list what the
 * tape itself implies: the entries before the anchor's cursor (`anchorEntryId` stands for them,
 * however many there are), nor retracted or superseded versions, which the fold leaves out.
 */
function assemble(context: ContextInput, latestEntryId: number, facts: RequestFacts, builder: Builder): Assembly {
  const { messages } = buildContext(context, facts.getEntry, builder.rules);
  const items = messages.map((m) => itemOf(m, facts.countTokens));

  let historyStart = 0;
  while (
    historyStart < items.length &&
    (items[historyStart].reason === INCLUDED_REASONS.systemPrompt ||
      items[historyStart].reason === INCLUDED_REASONS.checkpoint ||
      items[historyStart].reason === INCLUDED_REASONS.pinned)
  )
    historyStart++;
  let inputAt = -1;
  for (let i = items.length - 1; i >= historyStart && inputAt < 0; i--) {
    const m = items[i].message;
    if (m.role === 'user' && m.source === 'tape') inputAt = i;
  }
  if (inputAt >= 0) items[inputAt].reason = INCLUDED_REASONS.input;
  let protectedStart = inputAt;
  while (protectedStart > historyStart && !startsGroup(items[protectedStart].message)) protectedStart--;

  const { model, tools } = facts;
  const reserve = reserveFor(model.contextWindow);
  const budget = model.contextWindow - model.maxOutput - reserve;
  let total = facts.countTokens(toolsJsonOf(tools));
  for (const item of items) total += item.tokens;
  const estimatedPrompt = fit(items, historyStart, protectedStart, total, budget);

  const kept: Item[] = [];
  const excluded: ExcludedItem[] = [];
  for (const item of items) {
    if (item.kept) kept.push(item);
    else if (item.message.entryId !== null) excluded.push({ entryId: item.message.entryId, reason: 'out_of_budget' });
  }
  const { contentHashes, promptHash } = hashPrompt(kept.map((i) => i.message));
  const included = kept.map((i, k) => includedOf(i.message, i.reason, i.tokens, contentHashes[k]));
  const params = requestParamsOf(model.maxOutput, facts.sampling ?? {}, tools.length);

  const manifest = sealManifest({
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    viewId: facts.viewId,
    sessionId: facts.sessionId,
    turnId: facts.turnId,
    requestSeq: facts.requestSeq,
    policy: { ...TAPE_CONTEXT_POLICY },
    builderVersion: builder.version,
    latestEntryId,
    anchorEntryId: context.anchorEntryId,
    included,
    excluded,
    tokenBudget: { contextWindow: model.contextWindow, maxOutput: model.maxOutput, reserve, estimatedPrompt },
    model: { vendor: model.vendor, id: model.id },
    hashes: { promptHash, toolsHash: toolsHashOf(tools) },
    assembledAt: facts.assembledAt,
    params,
  });
  // The request is sent with exactly the params the manifest records.
  return { request: { messages: kept.map((i) => promptMessageOf(i.message)), tools, ...params }, manifest };
}
