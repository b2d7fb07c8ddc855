import { amendableAnchor, type ViewAnchor } from './anchorFold';
import { isReconstructionAnchor, textOf, type Entry } from './entry';
import {
  applyRows,
  newFoldState,
  viewOf,
  type EffectiveView,
  type FoldOptions,
  type FoldRow,
  type ViewMessage,
  type ViewToolCall,
  type ViewToolResult,
} from './fold';
import type { FoldCache } from './foldCache';
import { editedSummaryOf, pinnedTexts } from './pinnedContext';
import { INTERRUPTED_OUTPUT, pairKey, unpairedToolCalls } from './toolPairs';

/**
 * Context selection (SPEC 2.5): which part of the effective view a model request sees. Only
 * reconstruction anchors (compaction/*, handoff/*, auto_handoff/*) move the cursor; the history
 * before it stays on the tape and in the full selector, it is just not sent.
 */
export type ContextSelector =
  | { kind: 'last' }
  | { kind: 'full' }
  | { kind: 'named'; name: string }
  /**
   * Anchor names or entry ids: context from `from`, ignoring every entry after `to` except the
   * results of calls made up to `to`, which keep their pairs whole.
   */
  | { kind: 'between'; from: string | number; to: string | number };

export type ContextRole = 'user' | 'assistant' | 'tool' | 'system';

export interface ContextMessage {
  role: ContextRole;
  source: 'tape' | 'synthetic';
  entryId: number | null;
  content: string;
  toolCallId?: string;
  /** On tool calls and results: the tool's name, which providers need next to the id. */
  toolName?: string;
  /** An entry or facts the user pinned to the checkpoint: sent after it, never dropped for the budget. */
  pinned?: true;
}

/** What a provider receives of a context message: its role, content and tool ids, no tape bookkeeping. */
export type PromptMessage = Pick<ContextMessage, 'role' | 'content' | 'toolCallId' | 'toolName'>;

/** The message as sent; absent tool fields are left out, not set to undefined (canonical JSON refuses those). */
export function promptMessageOf(m: PromptMessage): PromptMessage {
  const out: PromptMessage = { role: m.role, content: m.content };
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
  if (m.toolName !== undefined) out.toolName = m.toolName;
  return out;
}

export interface ContextResult {
  /** The reconstruction anchor in force, or null when the context starts at the beginning. */
  anchorEntryId: number | null;
  messages: ContextMessage[];
}

/** Loads an entry's full payload; called only for the entries that end up in the context. */
export type GetEntry = (entryId: number) => Entry;

export class ContextSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContextSelectionError';
  }
}

/**
 * What of the tape a context builder honours besides its entries. The builder before amendments
 * (`agent-tape/assemble@1`) must rebuild its recorded requests as they were, so it ignores them.
 */
export interface ContextRules {
  /** Pins, edited summaries and undos of compactions (anchorFold.ts). */
  amendments: boolean;
}

export const WITH_AMENDMENTS: ContextRules = { amendments: true };

export interface ResolvedSelector {
  anchorEntryId: number | null;
  /** The last entry the context may see; null means the whole tape. */
  toEntryId: number | null;
}

function lastAnchorNamed(anchors: readonly ViewAnchor[], name: string, atOrBefore = Infinity): ViewAnchor {
  for (let i = anchors.length - 1; i >= 0; i--) {
    if (anchors[i].name === name && anchors[i].entryId <= atOrBefore) return anchors[i];
  }
  throw new ContextSelectionError(
    `no anchor named "${name}"${atOrBefore === Infinity ? '' : ` at or before entry ${atOrBefore}`}; anchors: ${
      anchors.map((a) => `${a.name}#${a.entryId}`).join(', ') || 'none'
    }`,
  );
}

/** A non-reconstruction anchor (session/start, fork/start, memory/*, unknown) never moves the cursor. */
const cursorAnchor = (a: ViewAnchor): number | null => (isReconstructionAnchor(a.name) ? a.entryId : null);

/**
 * Resolves a selector against the anchors of the whole tape. `last` is the reconstruction anchor
 * in force: with amendments, an undone compaction is not, and the one before it is again.
 */
export function resolveSelector(anchors: readonly ViewAnchor[], selector: ContextSelector, rules: ContextRules = WITH_AMENDMENTS): ResolvedSelector {
  switch (selector.kind) {
    case 'full':
      return { anchorEntryId: null, toEntryId: null };
    case 'last': {
      if (rules.amendments) return { anchorEntryId: amendableAnchor(anchors)?.entryId ?? null, toEntryId: null };
      for (let i = anchors.length - 1; i >= 0; i--) {
        if (isReconstructionAnchor(anchors[i].name)) return { anchorEntryId: anchors[i].entryId, toEntryId: null };
      }
      return { anchorEntryId: null, toEntryId: null };
    }
    case 'named':
      return { anchorEntryId: cursorAnchor(lastAnchorNamed(anchors, selector.name)), toEntryId: null };
    case 'between': {
      const to = typeof selector.to === 'number' ? selector.to : lastAnchorNamed(anchors, selector.to).entryId;
      let from: ViewAnchor;
      if (typeof selector.from === 'number') {
        const found = anchors.find((a) => a.entryId === selector.from);
        if (found === undefined) throw new ContextSelectionError(`entry ${selector.from} is not an anchor`);
        from = found;
      } else {
        from = lastAnchorNamed(anchors, selector.from, to);
      }
      if (from.entryId > to) throw new ContextSelectionError(`anchor ${from.name}#${from.entryId} is after the end of the range (entry ${to})`);
      return { anchorEntryId: cursorAnchor(from), toEntryId: to };
    }
  }
}

/**
 * Where the context resumes after an anchor. A compaction (or a handoff that records one) names
 * the last orderSeq its summary covers. A handoff without one covers what was effective when it
 * was written, so the messages after it are those whose effective version was appended after the
 * anchor: new messages, and revisions of older ones (the summary has not seen the new text).
 */
export type Cursor = { orderSeq: number } | { afterEntryId: number };

export function cursorOf(anchor: Entry): Cursor {
  const state = anchor.payload.state;
  if (typeof state === 'object' && state !== null) {
    const seq = (state as Record<string, unknown>).cursorOrderSeq;
    if (typeof seq === 'number' && Number.isFinite(seq)) return { orderSeq: seq };
  }
  return { afterEntryId: anchor.entryId };
}

export const isAfterCursor = (m: ViewMessage, cursor: Cursor): boolean =>
  'orderSeq' in cursor ? m.orderSeq > cursor.orderSeq : m.entryId > cursor.afterEntryId;

/** The anchor state's list of facts its summary missed (compactor.ts writes it). */
export const ALSO_IN_RANGE = 'alsoInRange';
const ALSO_IN_RANGE_TITLE = 'Also in this range (not in the summary; read any of them back by entry id):';

// Bookkeeping fields of an anchor's state: they place the cursor and are no use to the model (the
// summary and the facts it missed are rendered on their own).
const BOOKKEEPING = new Set(['summary', 'cursorOrderSeq', 'sourceEntryIds', 'model', 'usage', ALSO_IN_RANGE]);

function renderValue(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? value.replace(/\n/g, `\n${indent}  `) : (JSON.stringify(value) ?? String(value));
  }
  const items: [string, unknown][] = Array.isArray(value) ? value.map((v) => ['-', v]) : Object.entries(value).map(([k, v]) => [`${k}:`, v]);
  if (items.length === 0) return Array.isArray(value) ? '(none)' : '(empty)';
  return items
    .map(([label, v]) =>
      v !== null && typeof v === 'object' ? `\n${indent}${label}${renderValue(v, `${indent}  `)}` : `\n${indent}${label} ${renderValue(v, indent)}`,
    )
    .join('');
}

/** The header of every checkpoint message. */
const checkpointHeader = (anchor: Entry): string =>
  `[Checkpoint ${anchor.name} at entry ${anchor.entryId}: the conversation before this point is summarised here.]`;

/** The facts of the range the summary does not mention, as the anchor lists them for the model. */
function renderAlsoInRange(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const lines: string[] = [];
  for (const f of value) {
    if (typeof f !== 'object' || f === null) continue;
    const { kind, value: v, entryIds } = f as Record<string, unknown>;
    if (typeof kind !== 'string' || typeof v !== 'string') continue;
    const ids = Array.isArray(entryIds) ? entryIds.filter((i): i is number => typeof i === 'number') : [];
    lines.push(`- ${kind}: ${v.replace(/\s+/g, ' ').trim()}${ids.length === 0 ? '' : ` (entr${ids.length === 1 ? 'y' : 'ies'} ${ids.join(', ')})`}`);
  }
  return lines.length === 0 ? null : `${ALSO_IN_RANGE_TITLE}\n${lines.join('\n')}`;
}

/**
 * The text the summary stands in for, as a person would edit it: the model's summary and its "also
 * in this range" list. An edited summary replaces all of it.
 */
export function checkpointSummaryText(anchor: Entry): string {
  const state = anchor.payload.state;
  if (typeof state === 'string') return state;
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return '';
  const s = state as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof s.summary === 'string' && s.summary.trim() !== '') parts.push(s.summary.trim());
  const also = renderAlsoInRange(s[ALSO_IN_RANGE]);
  if (also !== null) parts.push(also);
  return parts.join('\n\n');
}

/**
 * The synthetic message that stands for everything before a reconstruction anchor; `editedSummary`
 * (the last `compaction/summary-edit`) replaces the anchor's summary and its list of missed facts.
 */
export function renderCheckpoint(anchor: Entry, editedSummary?: string): string {
  const state = anchor.payload.state;
  const parts = [checkpointHeader(anchor)];
  if (editedSummary !== undefined) parts.push(editedSummary.trim());
  else if (typeof state === 'string') parts.push(state);
  else {
    const text = checkpointSummaryText(anchor);
    if (text !== '') parts.push(text);
  }
  if (typeof state === 'object' && state !== null && !Array.isArray(state)) {
    // Compaction state is pure bookkeeping besides the summary; a handoff may carry structured state.
    const rest = Object.entries(state).filter(([k]) => !BOOKKEEPING.has(k));
    if (rest.length > 0) parts.push(`State:${renderValue(Object.fromEntries(rest), '')}`);
  }
  return parts.join('\n\n');
}

/** One item of a context before any content is loaded: what buildContext renders and the pressure gauge counts. */
export type ContextItem =
  | { kind: 'message'; message: ViewMessage }
  | { kind: 'call'; call: ViewToolCall }
  | { kind: 'result'; call: ViewToolCall; result: ViewToolResult }
  /** A call whose result was never recorded (crash, cancel): providers reject a call left unanswered. */
  | { kind: 'interrupted'; call: ViewToolCall };

/**
 * The messages after the cursor. The view orders messages by orderSeq, so after a compaction they
 * are a suffix found by binary search: a request on a long session does not walk its whole history.
 */
function shownAfter(messages: readonly ViewMessage[], cursor: Cursor | null): readonly ViewMessage[] {
  if (cursor === null) return messages;
  if (!('orderSeq' in cursor)) return messages.filter((m) => isAfterCursor(m, cursor));
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[mid].orderSeq <= cursor.orderSeq) lo = mid + 1;
    else hi = mid;
  }
  return messages.slice(lo);
}

/**
 * The effective messages after the cursor, each followed by its tool calls and then their results
 * in call order, the shape providers expect for parallel calls. A result whose call is not shown is
 * dropped and a call without a result gets an interrupted placeholder, so no pair is ever split.
 */
export function contextItems(view: EffectiveView, cursor: Cursor | null): ContextItem[] {
  // Each shown message's tool facts come from the view's per-message index, so the cost follows the
  // window, not the session: a gauge reads this on every request.
  const items: ContextItem[] = [];
  for (const m of shownAfter(view.messages, cursor)) {
    items.push({ kind: 'message', message: m });
    const facts = view.toolFacts.get(m.messageId);
    if (facts === undefined) continue;
    for (const c of facts.calls) items.push({ kind: 'call', call: c });
    for (const c of facts.calls) {
      const r = facts.results.get(c.toolCallId);
      items.push(r === undefined ? { kind: 'interrupted', call: c } : { kind: 'result', call: c, result: r });
    }
  }
  return items;
}

function tryEntry(getEntry: GetEntry, id: number): Entry | undefined {
  try {
    return getEntry(id);
  } catch {
    return undefined;
  }
}

function shownEntryIds(items: readonly ContextItem[]): Set<number> {
  const ids = new Set<number>();
  for (const i of items) {
    if (i.kind === 'message') ids.add(i.message.entryId);
    else if (i.kind === 'result') ids.add(i.result.entryId);
    else ids.add(i.call.entryId);
  }
  return ids;
}

export interface ContextInput {
  /** A view folded without pending messages: the model never sees a message still streaming. */
  view: EffectiveView;
  anchorEntryId: number | null;
}

/**
 * Builds the model's context from a view: its system prompt, the checkpoint of the anchor in force,
 * then the context items after the anchor's cursor. An interrupted call is answered in the context
 * only: building a context never writes to the tape (the store's crash repair does that).
 */
export function buildContext(input: ContextInput, getEntry: GetEntry, rules: ContextRules = WITH_AMENDMENTS): ContextResult {
  const { view, anchorEntryId } = input;
  const messages: ContextMessage[] = [];
  if (view.systemPromptEntryId !== null) {
    messages.push({ role: 'system', source: 'tape', entryId: view.systemPromptEntryId, content: textOf(getEntry(view.systemPromptEntryId).payload.content) });
  }
  const anchor = anchorEntryId === null ? null : getEntry(anchorEntryId);
  const cursor: Cursor | null = anchor === null ? null : cursorOf(anchor);
  const items = contextItems(view, cursor);
  if (anchor !== null) {
    const amendments = rules.amendments ? view.anchors.find((a) => a.entryId === anchor.entryId)?.amendments : undefined;
    // A pin naming an entry the view lacks is skipped, not an error: the tape may come from anywhere.
    const load = (id: number): Entry | undefined => (id > 0 && id <= view.headEntryId ? tryEntry(getEntry, id) : undefined);
    messages.push({ role: 'user', source: 'synthetic', entryId: null, content: renderCheckpoint(anchor, editedSummaryOf(amendments, load)) });
    for (const p of pinnedTexts(amendments, shownEntryIds(items), load)) {
      messages.push({ role: 'user', source: p.entryId === null ? 'synthetic' : 'tape', entryId: p.entryId, content: p.content, pinned: true });
    }
  }
  for (const item of items) {
    switch (item.kind) {
      case 'message': {
        const m = item.message;
        messages.push({ role: m.role as 'user' | 'assistant', source: 'tape', entryId: m.entryId, content: textOf(getEntry(m.entryId).payload.content) });
        break;
      }
      case 'call': {
        const c = item.call;
        messages.push({
          role: 'assistant',
          source: 'tape',
          entryId: c.entryId,
          content: textOf(getEntry(c.entryId).payload.input ?? null),
          toolCallId: c.toolCallId,
          toolName: c.name,
        });
        break;
      }
      case 'result': {
        const { call, result } = item;
        messages.push({
          role: 'tool',
          source: 'tape',
          entryId: result.entryId,
          content: textOf(getEntry(result.entryId).payload.output),
          toolCallId: call.toolCallId,
          toolName: call.name,
        });
        break;
      }
      case 'interrupted':
        messages.push({
          role: 'tool',
          source: 'synthetic',
          entryId: null,
          content: INTERRUPTED_OUTPUT,
          toolCallId: item.call.toolCallId,
          toolName: item.call.name,
        });
        break;
    }
  }
  return { anchorEntryId, messages };
}

const FINAL: FoldOptions = { includePending: false };

/**
 * The view at entry `to`, plus the results appended after it for the calls it left unanswered: a
 * range that ends while a tool runs still shows the call with its outcome, and nothing else later.
 */
function viewUntil(rows: readonly FoldRow[], to: number): EffectiveView {
  let end = 0;
  while (end < rows.length && rows[end].entryId <= to) end++;
  const state = newFoldState(FINAL);
  applyRows(state, rows.slice(0, end));
  const open = new Set(unpairedToolCalls(viewOf(state)).map((c) => pairKey(c.messageId, c.toolCallId)));
  if (open.size === 0) return viewOf(state);
  const results = rows
    .slice(end)
    .filter((r) => r.kind === 'tool_result' && r.messageId !== null && r.toolCallId !== null && open.has(pairKey(r.messageId, r.toolCallId)));
  return applyRows(state, results);
}

/**
 * The view and anchor a selector picks, from the session's cached fold: a caller that keeps its
 * FoldCache pays for the entries appended since its last request, not for the whole session. A
 * `between` range ends before the head, so it folds its prefix.
 */
export function contextInputFrom(cache: FoldCache, sessionId: string, selector: ContextSelector, rules: ContextRules = WITH_AMENDMENTS): ContextInput {
  const view = cache.view(sessionId, FINAL);
  const { anchorEntryId, toEntryId } = resolveSelector(view.anchors, selector, rules);
  return { view: toEntryId === null ? view : viewUntil(cache.source.foldRows(sessionId, 0), toEntryId), anchorEntryId };
}

/** The context a selector picks, from the session's cached fold (see `contextInputFrom`). */
export function contextFrom(cache: FoldCache, sessionId: string, selector: ContextSelector, getEntry: GetEntry): ContextResult {
  return buildContext(contextInputFrom(cache, sessionId, selector), getEntry);
}
