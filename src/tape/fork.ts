import { FORK_START, FORK_MERGE, FORK_DISCARD, SUBAGENT_START, SUBAGENT_LINKED, TURN_END, TURN_START } from './entryNames';
import * as z from 'zod';
import { canonicalJson, sha256Hex } from './canonicalJson';
import type { Entry, JsonObject, NewEntry } from './entry';
import { namedProvenanceKey } from './provenanceKey';

/**
 * Fork, merge, discard and subagent links (SPEC 2.8), as pure rules over entries. The store side
 * (src/store/forks.ts) reads the tape, asks these functions what to append, and appends it in one
 * transaction; nothing here touches storage.
 *
 * Every decision is an append with a receipt on the parent: a fork's merge or discard is a
 * `fork/merge` or `fork/discard` event of the parent session, a finished subagent a
 * `subagent/linked` event. The fork's own first entries are `session/start` and the `fork/start`
 * anchor, so a fork names its parent and fork point without any id parsing.
 */

/** The entry id of `fork/start` in a fork session (`session/start` is 1). */
export const FORK_START_ENTRY_ID = 2;

const FORK_SEPARATOR = '::fork::';
const SUBAGENT_SEPARATOR = '::subagent::';

/** Fork ids are short and safe in a session id, a file name and a command line. */
export const forkIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a fork id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');

export const forkSessionId = (parentSessionId: string, forkId: string): string => `${parentSessionId}${FORK_SEPARATOR}${forkId}`;
export const subagentSessionId = (parentSessionId: string, childId: string): string => `${parentSessionId}${SUBAGENT_SEPARATOR}${childId}`;

/** The `fork/start` anchor's state. `parentHeadEntryId` is the fork point: the fork reads the parent up to it. */
export const forkStartState = z.looseObject({
  parentSessionId: z.string().min(1),
  parentHeadEntryId: z.number().int().min(1),
  forkId: forkIdSchema,
});
export type ForkStartState = z.infer<typeof forkStartState>;

export const mergeReceiptData = z.looseObject({
  forkSessionId: z.string().min(1),
  forkId: z.string().min(1),
  forkHeadEntryId: z.number().int(),
  mergedCount: z.number().int().min(0),
  parentHeadAtFork: z.number().int(),
  parentHeadAtMerge: z.number().int(),
  parentMovedOn: z.boolean(),
  /** Added to the merged messages' orderSeq (and a merged compaction's cursor) when the parent moved on. */
  orderSeqShift: z.number(),
});
export type MergeReceiptData = z.infer<typeof mergeReceiptData>;
export type MergeReceipt = MergeReceiptData & { receiptEntryId: number };

export const discardReceiptData = z.looseObject({
  forkSessionId: z.string().min(1),
  forkId: z.string().min(1),
  forkHeadEntryId: z.number().int(),
  reason: z.string().nullable(),
});
export type DiscardReceiptData = z.infer<typeof discardReceiptData>;
export type DiscardReceipt = DiscardReceiptData & { receiptEntryId: number };

export const SUBAGENT_OUTCOMES = ['completed', 'failed', 'cancelled'] as const;
export type SubagentOutcome = (typeof SUBAGENT_OUTCOMES)[number];

/** The `subagent/start` anchor's state: what the child was asked to do, and by which tool call. */
export const subagentStartState = z.looseObject({
  parentSessionId: z.string().min(1),
  task: z.string(),
  instructions: z.string().optional(),
  tools: z.array(z.string()).optional(),
  toolCallId: z.string().optional(),
});
export type SubagentStartState = z.infer<typeof subagentStartState>;

/**
 * A `subagent/linked` event's data. The frozen head is what the parent may read; the head entry's
 * hash and the child's start time tell a recreated or reset child from the one that was linked.
 * Links written by older ingests lack the head: such a link names the child but lets nothing through.
 */
export const linkData = z.looseObject({
  childSessionId: z.string().min(1),
  childHeadEntryId: z.number().int().min(0).optional(),
  childHeadHash: z.string().optional(),
  childStartedAt: z.number().optional(),
  outcome: z.enum(SUBAGENT_OUTCOMES).optional(),
  summary: z.string().optional(),
});
export type LinkData = z.infer<typeof linkData>;
export type LinkReceipt = LinkData & { receiptEntryId: number };

/** Why a fork, merge, discard or link read was refused; the CLI exits 2 with this message. */
export class ForkRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkRefusedError';
  }
}

const dataOf = (e: Entry): unknown => (e.payload as { data?: unknown }).data;

/** The `fork/start` state of a session's entry 2, or null when the session is not a fork. */
export function forkStartOf(entry: Entry | undefined): ForkStartState | null {
  if (entry === undefined || entry.kind !== 'anchor' || entry.name !== FORK_START) return null;
  const parsed = forkStartState.safeParse((entry.payload as { state?: unknown }).state);
  return parsed.success ? parsed.data : null;
}

export function forkStartEntry(state: ForkStartState): NewEntry {
  return { kind: 'anchor', name: FORK_START, provenanceKey: FORK_START, payload: { name: FORK_START, state } };
}

export function subagentStartEntry(state: SubagentStartState): NewEntry {
  return { kind: 'anchor', name: SUBAGENT_START, provenanceKey: SUBAGENT_START, payload: { name: SUBAGENT_START, state } };
}

/** The provenance key of a fork's receipt on its parent: at most one merge and one discard per fork. */
export const receiptKey = (name: typeof FORK_MERGE | typeof FORK_DISCARD, forkSessionId: string): string => namedProvenanceKey(name, forkSessionId);

/**
 * The turn still open at the end of `events` (the `turn/start` and `turn/end` events up to a fork
 * point, in order), or null. A fork point inside a turn would cut a request from its answer.
 */
export function openTurnOf(events: readonly Entry[]): string | null {
  let open: string | null = null;
  for (const e of events) {
    const turnId = (dataOf(e) as { turnId?: unknown } | undefined)?.turnId;
    if (typeof turnId !== 'string') continue;
    if (e.name === TURN_START) open = turnId;
    else if (e.name === TURN_END && open === turnId) open = null;
  }
  return open;
}

export interface MergePlanInput {
  forkSessionId: string;
  fork: ForkStartState;
  /** The fork's own entries after `fork/start`, in entry order. */
  delta: readonly Entry[];
  forkHeadEntryId: number;
  parentHeadAtMerge: number;
  /** The greatest message orderSeq of the parent's view at the fork point and now. */
  parentOrderSeqAtFork: number;
  parentOrderSeqNow: number;
}

/**
 * What a merge appends to the parent: each delta entry as it is, marked with `meta.mergedFrom`,
 * then the receipt. When the parent moved on (its messages passed the fork point's), the merged
 * messages are moved after the parent's by shifting their orderSeq, so the two lines of work do
 * not interleave in the parent's view.
 */
export function planMerge(input: MergePlanInput): { entries: NewEntry[]; receipt: MergeReceiptData } {
  const shift = Math.max(0, input.parentOrderSeqNow - input.parentOrderSeqAtFork);
  const entries = input.delta.map((e): NewEntry => ({
    kind: e.kind,
    name: e.name,
    provenanceKey: namedProvenanceKey(FORK_MERGE, input.forkSessionId, e.entryId),
    payload: shift === 0 ? e.payload : shiftOrderSeq(e, shift),
    meta: { ...e.meta, mergedFrom: { sessionId: input.forkSessionId, entryId: e.entryId } },
    createdAt: e.createdAt,
  }));
  const receipt: MergeReceiptData = {
    forkSessionId: input.forkSessionId,
    forkId: input.fork.forkId,
    forkHeadEntryId: input.forkHeadEntryId,
    mergedCount: entries.length,
    parentHeadAtFork: input.fork.parentHeadEntryId,
    parentHeadAtMerge: input.parentHeadAtMerge,
    parentMovedOn: input.parentHeadAtMerge > input.fork.parentHeadEntryId,
    orderSeqShift: shift,
  };
  entries.push({ kind: 'event', name: FORK_MERGE, provenanceKey: receiptKey(FORK_MERGE, input.forkSessionId), payload: { name: FORK_MERGE, data: receipt } });
  return { entries, receipt };
}

function shiftOrderSeq(e: Entry, shift: number): JsonObject {
  const p = e.payload;
  if (e.kind === 'message' && typeof p.orderSeq === 'number') return { ...p, orderSeq: p.orderSeq + shift };
  const state = (p as { state?: unknown }).state;
  if (e.kind === 'anchor' && e.name.startsWith('compaction/') && typeof state === 'object' && state !== null) {
    const s = state as JsonObject;
    if (typeof s.cursorOrderSeq === 'number') return { ...p, state: { ...s, cursorOrderSeq: s.cursorOrderSeq + shift } };
  }
  return p;
}

const mergedFrom = z.object({ sessionId: z.string().min(1), entryId: z.number().int().positive() });

/** Where a merged entry came from (`meta.mergedFrom`, as planMerge writes it); null for any other entry. */
export function mergedFromOf(entry: Entry): { sessionId: string; entryId: number } | null {
  const parsed = mergedFrom.safeParse(entry.meta.mergedFrom);
  return parsed.success ? parsed.data : null;
}

export function discardEntry(receipt: DiscardReceiptData): NewEntry {
  return { kind: 'event', name: FORK_DISCARD, provenanceKey: receiptKey(FORK_DISCARD, receipt.forkSessionId), payload: { name: FORK_DISCARD, data: receipt } };
}

/** The hash a link freezes: of the child's head entry as stored, so any other entry there is noticed. */
export const entryHash = (e: Entry): string => sha256Hex(canonicalJson(e));

export function linkEntry(data: LinkData): NewEntry {
  return {
    kind: 'event',
    name: SUBAGENT_LINKED,
    provenanceKey: namedProvenanceKey(SUBAGENT_LINKED, data.childSessionId, data.childHeadEntryId ?? 0),
    payload: { name: SUBAGENT_LINKED, data },
  };
}

/** A receipt event's data, parsed; null for another event or a malformed one. */
export function receiptOf<T>(entry: Entry, name: string, schema: z.ZodType<T>): T | null {
  if (entry.kind !== 'event' || entry.name !== name) return null;
  const parsed = schema.safeParse(dataOf(entry));
  return parsed.success ? parsed.data : null;
}
