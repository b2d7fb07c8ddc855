import { FORK_DISCARD, FORK_MERGE, SUBAGENT_START, SUBAGENT_LINKED, VIEW_ASSEMBLED, TURN_END, TURN_START } from '../tape/entryNames';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Entry } from '../tape/entry';
import {
  FORK_START_ENTRY_ID,
  ForkRefusedError,
  discardEntry,
  discardReceiptData,
  forkIdSchema,
  forkSessionId,
  forkStartEntry,
  linkData,
  mergeReceiptData,
  openTurnOf,
  planMerge,
  receiptOf,
  subagentStartState,
  type DiscardReceipt,
  type LinkReceipt,
  type MergeReceipt,
} from '../tape/fork';
import { isIngestedSession } from '../tape/ingestedSession';
import { rerunOfSession } from '../tape/evaluation/rerunEntries';
import { readerOf } from './lineage';
import { linkedChildren } from './subagentLinks';
import type { TapeStore } from './tapeStore';

/**
 * Fork, merge and discard on a store (SPEC 2.8), each one append transaction. Checks and the append
 * run without an await between them, so nothing else can append in between on this store.
 */

export interface ForkReceipt {
  forkSessionId: string;
  forkId: string;
  parentSessionId: string;
  /** The fork point: the fork reads its parent up to this entry. */
  parentHeadEntryId: number;
}

export type ForkStatus = 'open' | 'merged' | 'discarded';

export interface ChildSession {
  sessionId: string;
  relation: 'fork' | 'subagent';
  state: ForkStatus | 'linked';
  receipt?: MergeReceipt | DiscardReceipt | LinkReceipt;
}

export interface LineageStep {
  sessionId: string;
  relation: 'root' | 'fork' | 'subagent';
  /** Where it branched from its parent (a fork point); null for the root and subagents. */
  at: number | null;
}

const quote = JSON.stringify;

/** The turn/start and turn/end events of a session's view up to `at`. */
function turnEvents(store: TapeStore, sessionId: string, at: number): Entry[] {
  const reader = readerOf(store);
  return [TURN_START, TURN_END].flatMap((name) => reader.entries(sessionId, { kind: 'event', name, toEntryId: at })).sort((a, b) => a.entryId - b.entryId);
}

/** The entry ids a fork inside `turnId` could use instead: just before the turn, and its end. */
function turnBounds(store: TapeStore, sessionId: string, turnId: string): string {
  const events = turnEvents(store, sessionId, Number.MAX_SAFE_INTEGER).filter((e) => (e.payload.data as { turnId?: unknown }).turnId === turnId);
  const start = events.find((e) => e.name === TURN_START)?.entryId;
  const end = events.find((e) => e.name === TURN_END)?.entryId;
  const before = start !== undefined && start > 1 ? `#${start - 1} (before it)` : null;
  const after = end !== undefined ? `#${end} (its end)` : null;
  const options = [before, after].filter((o) => o !== null);
  return `${options.length ? `; fork at ${options.join(' or ')}` : ''}${options.length ? ', or' : '; fork'} just before one of its requests (a ${VIEW_ASSEMBLED} entry)`;
}

/** The merge and discard receipts on a parent, by fork session id (the first of each counts). */
function forkReceipts(store: TapeStore, parentSessionId: string): { merges: Map<string, MergeReceipt>; discards: Map<string, DiscardReceipt> } {
  const collect = <T extends { forkSessionId: string }>(name: string, schema: z.ZodType<T>): Map<string, T & { receiptEntryId: number }> => {
    const byFork = new Map<string, T & { receiptEntryId: number }>();
    for (const e of store.entries(parentSessionId, { kind: 'event', name })) {
      const r = receiptOf(e, name, schema);
      if (r !== null && !byFork.has(r.forkSessionId)) byFork.set(r.forkSessionId, { ...r, receiptEntryId: e.entryId });
    }
    return byFork;
  };
  return { merges: collect(FORK_MERGE, mergeReceiptData), discards: collect(FORK_DISCARD, discardReceiptData) };
}

/** Receipts of `forkSessionId` on its parent. */
function receipts(store: TapeStore, parentSessionId: string, forkSessionId: string): { merge: MergeReceipt | null; discard: DiscardReceipt | null } {
  const all = forkReceipts(store, parentSessionId);
  return { merge: all.merges.get(forkSessionId) ?? null, discard: all.discards.get(forkSessionId) ?? null };
}

/**
 * Starts a fork of `parentSessionId` at its head or at entry `at` (a position of its view, so a
 * fork of a fork works the same). Refused at a point inside an open turn (except just before one of
 * its requests, where a re-run forks), for an unknown parent,
 * and for a fork id that was ever used under this parent (a merged or discarded fork's included).
 */
export async function forkSession(store: TapeStore, parentSessionId: string, opts: { at?: number; forkId?: string } = {}): Promise<ForkReceipt> {
  const reader = readerOf(store);
  const head = reader.headEntryId(parentSessionId);
  if (head === 0) throw new ForkRefusedError(`the tape has no session ${quote(parentSessionId)}`);
  const at = opts.at ?? head;
  if (!Number.isInteger(at) || at < 1 || at > head)
    throw new ForkRefusedError(`cannot fork ${quote(parentSessionId)} at entry ${at}: its entries are 1 to ${head}`);
  const checked = forkIdSchema.safeParse(opts.forkId ?? randomUUID().slice(0, 8));
  if (!checked.success) throw new ForkRefusedError(`fork id ${quote(opts.forkId)}: ${z.prettifyError(checked.error)}`);
  const forkId = checked.data;
  const id = forkSessionId(parentSessionId, forkId);
  const used = receipts(store, parentSessionId, id);
  if (store.headEntryId(id) > 0 || used.merge !== null || used.discard !== null) {
    throw new ForkRefusedError(`fork id ${quote(forkId)} is already used under ${quote(parentSessionId)}; fork ids are never reused`);
  }
  const open = openTurnOf(turnEvents(store, parentSessionId, at));
  if (open !== null && !beforeRequestOf(reader.getEntry(parentSessionId, at + 1), open))
    throw new ForkRefusedError(
      `entry ${at} of ${quote(parentSessionId)} is inside turn ${quote(open)}, which has not ended there${turnBounds(store, parentSessionId, open)}`,
    );
  await store.appendMany(id, [forkStartEntry({ parentSessionId, parentHeadEntryId: at, forkId })]);
  return { forkSessionId: id, forkId, parentSessionId, parentHeadEntryId: at };
}

/**
 * Whether the entry after a fork point is a request of the open turn: a point just before a
 * `view/assembled` holds everything that request was built from and nothing of its answer, so a
 * fork there (a re-run) can send that request again and go on in the turn.
 */
function beforeRequestOf(next: Entry | undefined, turnId: string): boolean {
  return next?.kind === 'event' && next.name === VIEW_ASSEMBLED && next.meta.turnId === turnId;
}

/** The fork/start state of `forkSessionId`, or a refusal naming what it is instead. */
function requireFork(store: TapeStore, forkSessionId: string) {
  const fork = readerOf(store).forkOf(forkSessionId);
  if (fork !== null) return fork;
  if (store.headEntryId(forkSessionId) === 0) throw new ForkRefusedError(`the tape has no session ${quote(forkSessionId)}`);
  throw new ForkRefusedError(`${quote(forkSessionId)} is not a fork (its entry ${FORK_START_ENTRY_ID} is not a fork/start anchor)`);
}

/** The greatest message orderSeq among a session view's rows up to `at`. */
function maxOrderSeq(store: TapeStore, sessionId: string, at: number): number {
  let max = 0;
  for (const r of readerOf(store).foldRows(sessionId, 0)) {
    if (r.entryId > at) break;
    if (r.kind === 'message' && r.orderSeq !== null && r.orderSeq > max) max = r.orderSeq;
  }
  return max;
}

/**
 * Appends the fork's delta to its parent, then the receipt, in one transaction. A second merge
 * returns the first receipt and appends nothing; a discarded fork, or one with a turn still
 * running, is refused.
 */
export async function mergeFork(store: TapeStore, forkSessionId: string): Promise<MergeReceipt & { alreadyMerged: boolean }> {
  const fork = requireFork(store, forkSessionId);
  const parent = fork.parentSessionId;
  const done = receipts(store, parent, forkSessionId);
  if (done.merge !== null) return { ...done.merge, alreadyMerged: true };
  if (done.discard !== null)
    throw new ForkRefusedError(
      `${quote(forkSessionId)} was discarded (entry ${done.discard.receiptEntryId} of ${quote(parent)}); a discarded fork is never merged`,
    );
  const forkHead = store.headEntryId(forkSessionId);
  const delta = store.entries(forkSessionId, { fromEntryId: FORK_START_ENTRY_ID + 1 });
  const rerun = rerunOfSession((id) => store.getEntry(forkSessionId, id));
  if (rerun !== null)
    throw new ForkRefusedError(
      `${quote(forkSessionId)} re-runs request #${rerun.sourceEntryId} of ${quote(rerun.sourceSessionId)}, which the session answered already: ` +
        'a re-run stands beside the recording and is never merged into it (chat on in the fork instead)',
    );
  // A fork made inside a turn (at a request) is in that turn until its own turn/end closes it.
  const own = delta.filter((e) => e.kind === 'event' && (e.name === TURN_START || e.name === TURN_END));
  const open = openTurnOf([...turnEvents(store, parent, fork.parentHeadEntryId), ...own]);
  if (open !== null) throw new ForkRefusedError(`${quote(forkSessionId)} is in the middle of turn ${quote(open)}; merge it once the turn has ended`);
  const parentHead = readerOf(store).headEntryId(parent);
  const plan = planMerge({
    forkSessionId,
    fork,
    delta,
    forkHeadEntryId: forkHead,
    parentHeadAtMerge: parentHead,
    parentOrderSeqAtFork: maxOrderSeq(store, parent, fork.parentHeadEntryId),
    parentOrderSeqNow: maxOrderSeq(store, parent, parentHead),
  });
  const written = await store.appendMany(parent, plan.entries);
  return { ...plan.receipt, receiptEntryId: written[written.length - 1].entry.entryId, alreadyMerged: false };
}

/** Appends the discard receipt to the parent; discarding twice returns the first receipt. A merged fork is refused. */
export async function discardFork(store: TapeStore, forkSessionId: string, reason?: string): Promise<DiscardReceipt> {
  const fork = requireFork(store, forkSessionId);
  const done = receipts(store, fork.parentSessionId, forkSessionId);
  if (done.discard !== null) return done.discard;
  if (done.merge !== null)
    throw new ForkRefusedError(`${quote(forkSessionId)} was already merged (entry ${done.merge.receiptEntryId} of ${quote(fork.parentSessionId)})`);
  const data = { forkSessionId, forkId: fork.forkId, forkHeadEntryId: store.headEntryId(forkSessionId), reason: reason?.trim() || null };
  const [written] = await store.appendMany(fork.parentSessionId, [discardEntry(data)]);
  return { ...data, receiptEntryId: written.entry.entryId };
}

export function forkStatus(store: TapeStore, forkSessionId: string): ForkStatus {
  const fork = requireFork(store, forkSessionId);
  const done = receipts(store, fork.parentSessionId, forkSessionId);
  return done.merge !== null ? 'merged' : done.discard !== null ? 'discarded' : 'open';
}

/** Ingested Claude Code subagents are `<parent>/agent-<id>`; the agent's own start with a subagent/start anchor. */
const INGESTED_CHILD = /^(.+)\/agent-[^/]+$/;

export type ParentLink = { sessionId: string; relation: 'fork' | 'subagent'; at: number | null };

/**
 * Parents found so far, per store and generation: a session's entry 2 never changes once written,
 * and an ingested child's link is never taken back, so the sessions view's redraws after every
 * append look each session up once.
 */
const knownParents = new WeakMap<TapeStore, { generation: number; bySession: Map<string, ParentLink | null>; linkers?: Map<string, string> }>();

export function parentOf(store: TapeStore, sessionId: string): ParentLink | null {
  let known = knownParents.get(store);
  if (known === undefined || known.generation !== store.generation())
    knownParents.set(store, (known = { generation: store.generation(), bySession: new Map() }));
  const cached = known.bySession.get(sessionId);
  if (cached !== undefined) return cached;
  const found = lookUpParent(store, sessionId, () => (known.linkers ??= linkersOf(store)));
  // Not final: a session without its entry 2 yet, or an ingested child whose link may still come.
  if (found.final) known.bySession.set(sessionId, found.parent);
  return found.parent;
}

/** The session linking each linked child (the first link naming it), over the whole tape. */
function linkersOf(store: TapeStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of store.entries(null, { kind: 'event', name: SUBAGENT_LINKED })) {
    const child = receiptOf(e, SUBAGENT_LINKED, linkData)?.childSessionId;
    if (child !== undefined && child !== e.sessionId && !out.has(child)) out.set(child, e.sessionId);
  }
  return out;
}

function lookUpParent(store: TapeStore, sessionId: string, linkers: () => Map<string, string>): { parent: ParentLink | null; final: boolean } {
  const fork = readerOf(store).forkOf(sessionId);
  if (fork !== null) return { parent: { sessionId: fork.parentSessionId, relation: 'fork', at: fork.parentHeadEntryId }, final: true };
  const second = store.getEntry(sessionId, FORK_START_ENTRY_ID);
  if (second?.kind === 'anchor' && second.name === SUBAGENT_START) {
    const state = subagentStartState.safeParse(second.payload.state);
    if (state.success) return { parent: { sessionId: state.data.parentSessionId, relation: 'subagent', at: null }, final: true };
  }
  const ingested = INGESTED_CHILD.exec(sessionId)?.[1];
  if (ingested !== undefined && linkedChildren(store, ingested).some((l) => l.childSessionId === sessionId))
    return { parent: { sessionId: ingested, relation: 'subagent', at: null }, final: true };
  // An ingested child with an id of its own (a Roo Code subtask is a task of its own) is the child of the session linking it.
  if (ingested === undefined && isIngestedSession(sessionId, store.getEntry(sessionId, 1), [])) {
    const linker = linkers().get(sessionId);
    return { parent: linker === undefined ? null : { sessionId: linker, relation: 'subagent', at: null }, final: linker !== undefined };
  }
  return { parent: null, final: second !== undefined && ingested === undefined };
}

/** Root first, ending with `sessionId`. */
export function lineageOf(store: TapeStore, sessionId: string): LineageStep[] {
  const steps: LineageStep[] = [];
  const seen = new Set<string>();
  let current: string | null = sessionId;
  // A damaged tape could make parents loop; each session is visited once.
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const parent = parentOf(store, current);
    steps.unshift({ sessionId: current, relation: parent?.relation ?? 'root', at: parent?.at ?? null });
    current = parent?.sessionId ?? null;
  }
  return steps;
}

/** Direct forks (with their state) and subagents (linked, or still running), in creation order. */
export function childrenOf(store: TapeStore, sessionId: string): ChildSession[] {
  return childrenBySession(store).get(sessionId) ?? [];
}

/**
 * Every session's direct children, from one pass over the sessions: each parent's receipts and
 * links are read once, however many children it has.
 */
export function childrenBySession(store: TapeStore): Map<string, ChildSession[]> {
  const unlinked = new Map<string, { sessionId: string; relation: 'fork' | 'subagent' }[]>();
  for (const s of store.sessions()) {
    const parent = parentOf(store, s.sessionId);
    if (parent === null || parent.sessionId === s.sessionId) continue;
    const list = unlinked.get(parent.sessionId) ?? [];
    list.push({ sessionId: s.sessionId, relation: parent.relation });
    unlinked.set(parent.sessionId, list);
  }
  const family = new Map<string, ChildSession[]>();
  for (const [parent, kids] of unlinked) {
    const links = new Map(linkedChildren(store, parent).map((l) => [l.childSessionId, l]));
    const done = forkReceipts(store, parent);
    const children: ChildSession[] = [];
    for (const kid of kids) {
      if (links.has(kid.sessionId)) continue;
      if (kid.relation === 'subagent') children.push({ sessionId: kid.sessionId, relation: 'subagent', state: 'open' });
      else {
        const merge = done.merges.get(kid.sessionId);
        const discard = done.discards.get(kid.sessionId);
        if (merge !== undefined) children.push({ sessionId: kid.sessionId, relation: 'fork', state: 'merged', receipt: merge });
        else if (discard !== undefined) children.push({ sessionId: kid.sessionId, relation: 'fork', state: 'discarded', receipt: discard });
        else children.push({ sessionId: kid.sessionId, relation: 'fork', state: 'open' });
      }
    }
    for (const link of links.values()) children.push({ sessionId: link.childSessionId, relation: 'subagent', state: 'linked', receipt: link });
    family.set(parent, children);
  }
  return family;
}
