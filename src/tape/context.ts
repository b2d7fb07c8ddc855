import { isReconstructionAnchor, textOf, type Entry } from './entry';
import { foldAll, type EffectiveView, type FoldRow, type ViewAnchor, type ViewMessage, type ViewToolCall, type ViewToolResult } from './fold';

/**
 * Context selection (SPEC 2.5): which part of the effective view a model request sees. Only
 * reconstruction anchors (compaction/*, handoff/*, auto_handoff/*) move the cursor; the history
 * before it stays on the tape and in the full selector, it is just not sent.
 */
export type ContextSelector =
  | { kind: 'last' }
  | { kind: 'full' }
  | { kind: 'named'; name: string }
  /** Anchor names or entry ids: context from `from`, ignoring every entry after `to`. */
  | { kind: 'between'; from: string | number; to: string | number };

export type ContextRole = 'user' | 'assistant' | 'tool' | 'system';

export interface ContextMessage {
  role: ContextRole;
  source: 'tape' | 'synthetic';
  entryId: number | null;
  content: string;
  toolCallId?: string;
  /** On tool calls: the tool's name, which a provider needs next to the id and the input (the content). */
  toolName?: string;
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

/** Resolves a selector against the anchors of the whole tape. */
export function resolveSelector(anchors: readonly ViewAnchor[], selector: ContextSelector): ResolvedSelector {
  switch (selector.kind) {
    case 'full':
      return { anchorEntryId: null, toEntryId: null };
    case 'last': {
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

// Bookkeeping fields of an anchor's state: they place the cursor and are no use to the model.
const BOOKKEEPING = new Set(['summary', 'cursorOrderSeq', 'sourceEntryIds', 'model', 'usage']);

function renderValue(value: unknown, indent: string): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? value.replace(/\n/g, `\n${indent}  `) : JSON.stringify(value) ?? String(value);
  }
  const items: [string, unknown][] = Array.isArray(value) ? value.map((v) => ['-', v]) : Object.entries(value).map(([k, v]) => [`${k}:`, v]);
  if (items.length === 0) return Array.isArray(value) ? '(none)' : '(empty)';
  return items
    .map(([label, v]) =>
      v !== null && typeof v === 'object' ? `\n${indent}${label}${renderValue(v, `${indent}  `)}` : `\n${indent}${label} ${renderValue(v, indent)}`,
    )
    .join('');
}

/** The synthetic message that stands for everything before a reconstruction anchor. */
export function renderCheckpoint(anchor: Entry): string {
  const state = anchor.payload.state;
  const parts = [`[Checkpoint ${anchor.name} at entry ${anchor.entryId}: the conversation before this point is summarised here.]`];
  if (typeof state === 'string') parts.push(state);
  else if (typeof state === 'object' && state !== null && !Array.isArray(state)) {
    const s = state as Record<string, unknown>;
    if (typeof s.summary === 'string' && s.summary.trim() !== '') parts.push(s.summary.trim());
    // Compaction state is pure bookkeeping besides the summary; a handoff may carry structured state.
    const rest = Object.entries(s).filter(([k]) => !BOOKKEEPING.has(k));
    if (rest.length > 0) parts.push(`State:${renderValue(Object.fromEntries(rest), '')}`);
  }
  return parts.join('\n\n');
}


export interface ContextInput {
  view: EffectiveView;
  anchorEntryId: number | null;
  /** The last `system/prompt` entry the context may see. */
  systemPromptEntryId: number | null;
}

/**
 * Builds the model's context from a view: system prompt, checkpoint, then each effective message
 * after the cursor followed by its tool calls and their results. A result whose call is not shown
 * is dropped, so a call/result pair is never split (a call may stand alone while its result is pending).
 */
export function buildContext(input: ContextInput, getEntry: GetEntry): ContextResult {
  const { view, anchorEntryId, systemPromptEntryId } = input;
  const messages: ContextMessage[] = [];
  if (systemPromptEntryId !== null) {
    messages.push({ role: 'system', source: 'tape', entryId: systemPromptEntryId, content: textOf(getEntry(systemPromptEntryId).payload.content) });
  }
  let cursor: Cursor | null = null;
  if (anchorEntryId !== null) {
    const anchor = getEntry(anchorEntryId);
    messages.push({ role: 'user', source: 'synthetic', entryId: null, content: renderCheckpoint(anchor) });
    cursor = cursorOf(anchor);
  }
  const callsOf = new Map<string, ViewToolCall[]>();
  for (const c of view.toolCalls) {
    const list = callsOf.get(c.messageId);
    if (list === undefined) callsOf.set(c.messageId, [c]);
    else list.push(c);
  }
  const resultOf = new Map<string, ViewToolResult>();
  for (const r of view.toolResults) resultOf.set(`${r.messageId}\u0000${r.toolCallId}`, r);

  for (const m of view.messages) {
    if (cursor !== null && !isAfterCursor(m, cursor)) continue;
    messages.push({ role: m.role as 'user' | 'assistant', source: 'tape', entryId: m.entryId, content: textOf(getEntry(m.entryId).payload.content) });
    const calls = callsOf.get(m.messageId);
    if (calls === undefined) continue;
    // Calls first, then their results in call order: the shape providers expect for parallel calls.
    for (const c of calls) {
      messages.push({ role: 'assistant', source: 'tape', entryId: c.entryId, content: textOf(getEntry(c.entryId).payload.input ?? null), toolCallId: c.toolCallId, toolName: c.name });
    }
    for (const c of calls) {
      const r = resultOf.get(`${c.messageId}\u0000${c.toolCallId}`);
      if (r !== undefined) messages.push({ role: 'tool', source: 'tape', entryId: r.entryId, content: textOf(getEntry(r.entryId).payload.output), toolCallId: r.toolCallId });
    }
  }
  return { anchorEntryId, messages };
}

/**
 * The context a selector picks from a tape's rows. The model never sees streaming (pending)
 * messages, so the fold excludes them.
 */
export function selectContext(rows: readonly FoldRow[], selector: ContextSelector, getEntry: GetEntry): ContextResult {
  const anchors: ViewAnchor[] = [];
  for (const r of rows) if (r.kind === 'anchor') anchors.push({ entryId: r.entryId, name: r.name });
  const { anchorEntryId, toEntryId } = resolveSelector(anchors, selector);
  const seen = toEntryId === null ? rows : rows.filter((r) => r.entryId <= toEntryId);
  let systemPromptEntryId: number | null = null;
  for (const r of seen) if (r.kind === 'system' && r.name === 'system/prompt') systemPromptEntryId = r.entryId;
  return buildContext({ view: foldAll(seen, { includePending: false }), anchorEntryId, systemPromptEntryId }, getEntry);
}
