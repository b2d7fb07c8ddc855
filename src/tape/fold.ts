import { RETRACTED_EVENT, SYSTEM_PROMPT } from './entryNames';
import { type Entry, type Kind } from './entry';
import { applyAnchorRow, type ViewAnchor } from './anchorFold';
import { isInterruptedResultKey } from './interruptedKey';

/**
 * The effective view (SPEC 2.3): what the conversation currently is, computed from the tape.
 *
 * The fold reads lightweight rows instead of entries so the store can feed it from indexed columns
 * without parsing payload JSON; content is loaded later, and only for the entries that are shown.
 */
export interface FoldRow {
  entryId: number;
  kind: Kind;
  name: string;
  messageId: string | null;
  toolCallId: string | null;
  status: string | null;
  orderSeq: number | null;
  role: string | null;
  /**
   * A tool result crash repair wrote for a call whose result was never recorded (its provenance
   * key says so): a recorded result for the same call wins over it, whichever comes first.
   */
  interrupted: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The row of an entry; the store calls this on every append, so it reads a few fields and nothing more. */
export function foldRowOf(entry: Entry): FoldRow {
  const p = entry.payload;
  const row: FoldRow = {
    entryId: entry.entryId,
    kind: entry.kind,
    name: entry.name,
    messageId: null,
    toolCallId: null,
    status: null,
    orderSeq: null,
    role: null,
    interrupted: false,
  };
  switch (entry.kind) {
    case 'message':
      row.messageId = str(p.messageId);
      row.status = str(p.status);
      row.orderSeq = num(p.orderSeq);
      row.role = str(p.role);
      break;
    case 'tool_call':
      row.messageId = str(p.messageId);
      row.toolCallId = str(p.toolCallId);
      break;
    case 'tool_result':
      row.messageId = str(p.messageId);
      row.toolCallId = str(p.toolCallId);
      row.status = str(p.status);
      row.interrupted = isInterruptedResultKey(entry.provenanceKey);
      break;
    case 'event':
      if (entry.name === RETRACTED_EVENT && typeof p.data === 'object' && p.data !== null) {
        row.messageId = str((p.data as Record<string, unknown>).messageId);
      }
      break;
    default:
      break;
  }
  return row;
}

export interface ViewMessage {
  readonly messageId: string;
  readonly role: string;
  readonly status: string;
  readonly orderSeq: number;
  readonly entryId: number;
}
export interface ViewToolCall {
  readonly messageId: string;
  readonly toolCallId: string;
  readonly name: string;
  readonly entryId: number;
}
export interface ViewToolResult {
  readonly messageId: string;
  readonly toolCallId: string;
  readonly status: string;
  readonly entryId: number;
}
/**
 * One effective message's tool facts, so a context reads those of the messages it shows without
 * walking the session's.
 */
export interface MessageToolFacts {
  /** Ordered by `entryId`. */
  readonly calls: readonly ViewToolCall[];
  /** By `toolCallId`: a context looks each result up by its call, so results follow call order. */
  readonly results: ReadonlyMap<string, ViewToolResult>;
}

export type { ViewAnchor } from './anchorFold';

/**
 * The folded view at `headEntryId`, in the JSON shape `agent-tape view --json` prints.
 * The arrays and maps are the fold state's own, kept sorted as rows arrive, so reading a view is
 * O(1); they stay valid until the next `applyRows` on the same state: copy them to keep a snapshot
 * (`structuredClone` keeps the maps; JSON drops them).
 */
export interface EffectiveView {
  readonly headEntryId: number;
  /** Ordered by `orderSeq`, ties by `entryId`. */
  readonly messages: readonly ViewMessage[];
  /** Ordered by `entryId`. */
  readonly toolCalls: readonly ViewToolCall[];
  /** Ordered by `entryId`. */
  readonly toolResults: readonly ViewToolResult[];
  /**
   * `toolCalls` and `toolResults` grouped by messageId, with an entry only for a message that has
   * at least one of them.
   */
  readonly toolFacts: ReadonlyMap<string, MessageToolFacts>;
  readonly anchors: readonly ViewAnchor[];
  /** The last `system/prompt` entry, kept here so a context can be built from the view alone. */
  readonly systemPromptEntryId: number | null;
}

export interface FoldOptions {
  /** Streaming (pending) messages count for the UI; a model request never sees them. */
  includePending: boolean;
}

interface ToolFacts {
  calls: ViewToolCall[];
  results: Map<string, ViewToolResult>;
}

/** Everything the fold knows about one messageId, including tool facts that arrived before the message. */
interface MessageSlot {
  candidate: ViewMessage | null;
  retracted: boolean;
  /** The latest call per toolCallId: a revised call finds the one it replaces without a scan. */
  callById: Map<string, ViewToolCall> | null;
  /** Shared with `FoldState.toolFacts` while the message is effective, so one update serves both. */
  facts: ToolFacts | null;
  /** The toolCallIds whose result in `facts` is crash repair's stand-in (FoldRow.interrupted). */
  interrupted: Set<string> | null;
}

/** The fold at a head. Treat as opaque: only `applyRows` changes it. */
export interface FoldState {
  readonly includePending: boolean;
  headEntryId: number;
  readonly slots: Map<string, MessageSlot>;
  readonly messages: ViewMessage[];
  readonly toolCalls: ViewToolCall[];
  readonly toolResults: ViewToolResult[];
  readonly toolFacts: Map<string, ToolFacts>;
  readonly anchors: ViewAnchor[];
  systemPromptEntryId: number | null;
}

export function newFoldState(options: FoldOptions): FoldState {
  return {
    includePending: options.includePending,
    headEntryId: 0,
    slots: new Map(),
    messages: [],
    toolCalls: [],
    toolResults: [],
    toolFacts: new Map(),
    anchors: [],
    systemPromptEntryId: null,
  };
}

export function viewOf(state: FoldState): EffectiveView {
  return {
    headEntryId: state.headEntryId,
    messages: state.messages,
    toolCalls: state.toolCalls,
    toolResults: state.toolResults,
    toolFacts: state.toolFacts,
    anchors: state.anchors,
    systemPromptEntryId: state.systemPromptEntryId,
  };
}

const messageRank = (status: string | null, includePending: boolean): number =>
  status === 'sent' || status === 'error' ? 2 : status === 'pending' && includePending ? 1 : 0;

/** (orderSeq, entryId) order; entryIds are unique, so two distinct messages never compare equal. */
const before = (a: ViewMessage, orderSeq: number, entryId: number): boolean => a.orderSeq < orderSeq || (a.orderSeq === orderSeq && a.entryId < entryId);

/** Where a message with this (orderSeq, entryId) sits in a list in view order. */
export function messageIndex(list: readonly ViewMessage[], orderSeq: number, entryId: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid], orderSeq, entryId)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertMessage(list: ViewMessage[], m: ViewMessage): void {
  // New messages nearly always carry the highest orderSeq, so the append is the common path.
  const n = list.length;
  if (n === 0 || before(list[n - 1], m.orderSeq, m.entryId)) list.push(m);
  else list.splice(messageIndex(list, m.orderSeq, m.entryId), 0, m);
}

function removeMessage(list: ViewMessage[], m: ViewMessage): void {
  list.splice(messageIndex(list, m.orderSeq, m.entryId), 1);
}

function replaceMessage(list: ViewMessage[], old: ViewMessage, next: ViewMessage): void {
  const i = messageIndex(list, old.orderSeq, old.entryId);
  // A revision usually keeps its orderSeq and only its neighbours decide whether it may stay in place.
  const fitsLeft = i === 0 || before(list[i - 1], next.orderSeq, next.entryId);
  const fitsRight = i === list.length - 1 || before(next, list[i + 1].orderSeq, list[i + 1].entryId);
  if (fitsLeft && fitsRight) {
    list[i] = next;
    return;
  }
  list.splice(i, 1);
  insertMessage(list, next);
}

/** The first index of a list sorted by entryId whose entryId is not below `entryId`. */
export function entryIndex(list: readonly { readonly entryId: number }[], entryId: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].entryId < entryId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertByEntry<T extends { readonly entryId: number }>(list: T[], item: T): void {
  const n = list.length;
  if (n === 0 || list[n - 1].entryId < item.entryId) list.push(item);
  else list.splice(entryIndex(list, item.entryId), 0, item);
}

function removeByEntry<T extends { readonly entryId: number }>(list: T[], item: T): void {
  list.splice(entryIndex(list, item.entryId), 1);
}

function slotOf(state: FoldState, messageId: string): MessageSlot {
  let slot = state.slots.get(messageId);
  if (slot === undefined) {
    slot = { candidate: null, retracted: false, callById: null, facts: null, interrupted: null };
    state.slots.set(messageId, slot);
  }
  return slot;
}

const isEffective = (slot: MessageSlot): boolean => slot.candidate !== null && !slot.retracted;

function showToolFacts(state: FoldState, messageId: string, slot: MessageSlot): void {
  if (slot.facts === null) return;
  for (const c of slot.facts.calls) insertByEntry(state.toolCalls, c);
  for (const r of slot.facts.results.values()) insertByEntry(state.toolResults, r);
  state.toolFacts.set(messageId, slot.facts);
}

function hideToolFacts(state: FoldState, messageId: string, slot: MessageSlot): void {
  if (slot.facts === null) return;
  for (const c of slot.facts.calls) removeByEntry(state.toolCalls, c);
  for (const r of slot.facts.results.values()) removeByEntry(state.toolResults, r);
  state.toolFacts.delete(messageId);
}

function factsOf(state: FoldState, messageId: string, slot: MessageSlot): ToolFacts {
  if (slot.facts === null) {
    slot.facts = { calls: [], results: new Map() };
    if (isEffective(slot)) state.toolFacts.set(messageId, slot.facts);
  }
  return slot.facts;
}

function applyMessage(state: FoldState, row: FoldRow): void {
  const rank = messageRank(row.status, state.includePending);
  if (rank === 0 || row.messageId === null || row.orderSeq === null || row.role === null) return;
  const slot = slotOf(state, row.messageId);
  const old = slot.candidate;
  const wasEffective = isEffective(slot);
  // Rows arrive in entryId order, so "equal rank and higher entryId" is simply "equal rank".
  if (old === null || rank >= messageRank(old.status, true)) {
    const next: ViewMessage = {
      messageId: row.messageId,
      role: row.role,
      status: row.status as string,
      orderSeq: row.orderSeq,
      entryId: row.entryId,
    };
    slot.candidate = next;
    if (wasEffective) replaceMessage(state.messages, old as ViewMessage, next);
  }
  // Any admitted row after a retraction is a revision: it revives the message (with its best version).
  slot.retracted = false;
  if (!wasEffective) {
    insertMessage(state.messages, slot.candidate as ViewMessage);
    showToolFacts(state, row.messageId, slot);
  }
}

function applyRetraction(state: FoldState, messageId: string): void {
  const slot = state.slots.get(messageId);
  // Retracting a message the fold has never admitted changes nothing: any later row would revive it.
  if (slot === undefined || !isEffective(slot)) return;
  slot.retracted = true;
  removeMessage(state.messages, slot.candidate as ViewMessage);
  hideToolFacts(state, messageId, slot);
}

function applyToolCall(state: FoldState, row: FoldRow): void {
  if (row.messageId === null || row.toolCallId === null) return;
  const slot = slotOf(state, row.messageId);
  const facts = factsOf(state, row.messageId, slot);
  const callById = (slot.callById ??= new Map());
  const old = callById.get(row.toolCallId);
  const next: ViewToolCall = { messageId: row.messageId, toolCallId: row.toolCallId, name: row.name, entryId: row.entryId };
  callById.set(row.toolCallId, next);
  // The new row has the highest entryId yet, so both lists stay sorted with a push.
  if (old !== undefined) removeByEntry(facts.calls, old);
  facts.calls.push(next);
  if (!isEffective(slot)) return;
  if (old !== undefined) removeByEntry(state.toolCalls, old);
  state.toolCalls.push(next);
}

function applyToolResult(state: FoldState, row: FoldRow): void {
  if (row.messageId === null || row.toolCallId === null || (row.status !== 'ok' && row.status !== 'error')) return;
  const slot = slotOf(state, row.messageId);
  const { results } = factsOf(state, row.messageId, slot);
  const old = results.get(row.toolCallId);
  // An older tape may hold a stand-in written while the real result was still to come (another
  // agent's call still running): the recorded result is the truth, before or after it.
  if (row.interrupted) {
    if (old !== undefined && slot.interrupted?.has(row.toolCallId) !== true) return;
    (slot.interrupted ??= new Set()).add(row.toolCallId);
  } else slot.interrupted?.delete(row.toolCallId);
  const next: ViewToolResult = { messageId: row.messageId, toolCallId: row.toolCallId, status: row.status, entryId: row.entryId };
  results.set(row.toolCallId, next);
  if (!isEffective(slot)) return;
  if (old !== undefined) removeByEntry(state.toolResults, old);
  state.toolResults.push(next);
}

/**
 * Folds rows (strictly after the state's head, in entryId order) onto the state. O(rows) amortised:
 * every structure is updated in place, and the ordered arrays take appends on the common path.
 */
export function applyRows(state: FoldState, rows: readonly FoldRow[]): EffectiveView {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row.entryId <= state.headEntryId) {
      throw new Error(`fold: row ${row.entryId} is not after the fold head ${state.headEntryId}; rows must be new and in entryId order`);
    }
    state.headEntryId = row.entryId;
    switch (row.kind) {
      case 'message':
        applyMessage(state, row);
        break;
      case 'tool_call':
        applyToolCall(state, row);
        break;
      case 'tool_result':
        applyToolResult(state, row);
        break;
      case 'anchor':
        applyAnchorRow(state.anchors, row);
        break;
      case 'system':
        if (row.name === SYSTEM_PROMPT) state.systemPromptEntryId = row.entryId;
        break;
      case 'event':
        if (row.name === RETRACTED_EVENT && row.messageId !== null) applyRetraction(state, row.messageId);
        else applyAnchorRow(state.anchors, row);
        break;
      default:
        break;
    }
  }
  return viewOf(state);
}

export function foldAll(rows: readonly FoldRow[], options: FoldOptions): EffectiveView {
  return applyRows(newFoldState(options), rows);
}
