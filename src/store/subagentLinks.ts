import { SUBAGENT_LINKED } from '../tape/entryNames';
import { byRank } from '../tape/search/entrySearch';
import { randomUUID } from 'node:crypto';
import type { Kind } from '../tape/entry';
import {
  ForkRefusedError,
  entryHash,
  linkData,
  linkEntry,
  receiptOf,
  subagentSessionId,
  subagentStartEntry,
  type LinkReceipt,
  type SubagentOutcome,
} from '../tape/fork';
import { readerOf } from './lineage';
import type { SearchHit } from './search';
import type { TapeStore } from './tapeStore';

/**
 * Subagent sessions and the links that let a parent read them (SPEC 2.8). A link freezes the
 * child's head: the parent reads the child up to it and no further, only its direct children, and
 * nothing at all of a child that is gone, was recreated or reset (fail closed).
 */

const quote = JSON.stringify;

/** Starts a child session: `session/start`, then the `subagent/start` anchor with its task. */
export async function startSubagent(
  store: TapeStore,
  parentSessionId: string,
  state: { task: string; instructions?: string; tools?: string[]; toolCallId?: string },
): Promise<{ childSessionId: string }> {
  const childSessionId = subagentSessionId(parentSessionId, randomUUID().slice(0, 8));
  await store.appendMany(childSessionId, [subagentStartEntry({ ...state, parentSessionId })]);
  return { childSessionId };
}

/** Appends `subagent/linked` to the parent, freezing the child's head as it is now. */
export async function linkSubagent(
  store: TapeStore,
  parentSessionId: string,
  childSessionId: string,
  outcome: SubagentOutcome,
  summary?: string,
): Promise<LinkReceipt> {
  const head = store.headEntryId(childSessionId);
  if (head === 0) throw new ForkRefusedError(`cannot link ${quote(childSessionId)}: the tape has no such session`);
  if (closesLinkCycle(store, parentSessionId, childSessionId))
    throw new ForkRefusedError(`cannot link ${quote(childSessionId)} to ${quote(parentSessionId)}: it is that session or one of its parents`);
  const data = {
    childSessionId,
    childHeadEntryId: head,
    childHeadHash: entryHash(store.requireEntry(childSessionId, head)),
    childStartedAt: store.requireEntry(childSessionId, 1).createdAt,
    outcome,
    ...(summary === undefined ? {} : { summary }),
  };
  const [written] = await store.appendMany(parentSessionId, [linkEntry(data)]);
  return { ...data, receiptEntryId: written.entry.entryId };
}

/** The last link of each direct child, in the order the children were first linked. */
export function linkedChildren(store: TapeStore, parentSessionId: string): LinkReceipt[] {
  const byChild = new Map<string, LinkReceipt>();
  for (const e of store.entries(parentSessionId, { kind: 'event', name: SUBAGENT_LINKED })) {
    const link = receiptOf(e, SUBAGENT_LINKED, linkData);
    if (link !== null) byChild.set(link.childSessionId, { ...link, receiptEntryId: e.entryId });
  }
  return [...byChild.values()];
}

/**
 * Whether a link from `parentSessionId` to `childSessionId` would close a cycle: the child is the
 * parent, or reaches it through the links on the tape. A parent walking its children would never end.
 */
function closesLinkCycle(store: TapeStore, parentSessionId: string, childSessionId: string): boolean {
  const seen = new Set<string>();
  const next = [childSessionId];
  for (let s = next.pop(); s !== undefined; s = next.pop()) {
    if (s === parentSessionId) return true;
    if (seen.has(s)) continue;
    seen.add(s);
    next.push(...linkedChildren(store, s).map((l) => l.childSessionId));
  }
  return false;
}

/** Why the child of `link` cannot be read through it, or null when it can. */
function brokenLink(store: TapeStore, link: LinkReceipt): string | null {
  const child = quote(link.childSessionId);
  if (link.childHeadEntryId === undefined) return `the link to ${child} records no frozen head`;
  const head = store.headEntryId(link.childSessionId);
  if (head === 0) return `${child} is missing from the tape`;
  if (head < link.childHeadEntryId) return `${child} was reset: it has ${head} entries, the link froze ${link.childHeadEntryId}`;
  const first = store.requireEntry(link.childSessionId, 1);
  const frozen = store.requireEntry(link.childSessionId, link.childHeadEntryId);
  if (
    (link.childStartedAt !== undefined && first.createdAt !== link.childStartedAt) ||
    (link.childHeadHash !== undefined && entryHash(frozen) !== link.childHeadHash)
  ) {
    return `${child} was recreated: its entry ${link.childHeadEntryId} is not the one the link froze`;
  }
  return null;
}

export interface ReadableLink {
  childSessionId: string;
  frozenHead: number;
}

/** The direct children a parent may read, and the ones it may not, with why. */
export function readableLinks(store: TapeStore, parentSessionId: string): { readable: ReadableLink[]; refused: { childSessionId: string; reason: string }[] } {
  const readable: ReadableLink[] = [];
  const refused: { childSessionId: string; reason: string }[] = [];
  for (const link of linkedChildren(store, parentSessionId)) {
    const reason = brokenLink(store, link);
    if (reason === null) readable.push({ childSessionId: link.childSessionId, frozenHead: link.childHeadEntryId as number });
    else refused.push({ childSessionId: link.childSessionId, reason });
  }
  return { readable, refused };
}

/** The frozen read of one child; refused for anything but a sound link of a direct child. */
export function readLinked(store: TapeStore, parentSessionId: string, childSessionId: string): ReadableLink {
  const link = linkedChildren(store, parentSessionId).find((l) => l.childSessionId === childSessionId);
  if (link === undefined)
    throw new ForkRefusedError(`${quote(childSessionId)} is not a linked child of ${quote(parentSessionId)}; only direct children are readable`);
  const reason = brokenLink(store, link);
  if (reason !== null) throw new ForkRefusedError(reason);
  return { childSessionId, frozenHead: link.childHeadEntryId as number };
}

export type SearchScope = 'current' | 'linked' | 'current_and_linked';
export const SEARCH_SCOPES = ['current', 'linked', 'current_and_linked'] as const satisfies readonly SearchScope[];

/** Ranked hits of the session (read through its fork lineage) and/or its readable linked children up to their frozen heads. */
export function searchScoped(
  store: TapeStore,
  sessionId: string,
  query: string,
  opts: { scope: SearchScope; kinds?: readonly Kind[]; limit: number },
): SearchHit[] {
  const { kinds, limit } = opts;
  const hits: SearchHit[] = [];
  if (opts.scope !== 'linked') hits.push(...readerOf(store).search(query, { sessionId, kinds, limit }));
  if (opts.scope !== 'current') {
    for (const link of readableLinks(store, sessionId).readable) {
      hits.push(...store.search(query, { sessionId: link.childSessionId, toEntryId: link.frozenHead, kinds, limit }));
    }
  }
  return hits.sort(byRank).slice(0, limit);
}
