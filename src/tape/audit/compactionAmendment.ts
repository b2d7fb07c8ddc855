import { PIN_EVENT, SUMMARY_EDIT_EVENT, UNDO_EVENT } from '../entryNames';
import * as z from 'zod';
import { amendableAnchor, type ViewAnchor } from '../anchorFold';
import { FACT_KINDS, isCompactionAnchor } from './compactionAudit';
import { contextItems, cursorOf, type GetEntry } from '../context';
import { PIN_FACT_MAX_CHARS, PIN_MAX_ITEMS, summaryTooLong, type Entry, type JsonObject, type Kind, type NewEntry } from '../entry';
import type { EffectiveView } from '../fold';
import { pinnedOf } from '../pinnedContext';

/**
 * The entries that amend the compaction in force (anchorFold.ts says how they fold): a pin, an
 * edited summary, an undo. Each is checked against the session's view before it is built, so a
 * pin names only conversation entries a later context does not already show nor a pin already
 * names, and nothing amends a handoff or a compaction already undone.
 */

export type AmendmentErrorCode = 'no_compaction' | 'stale' | 'invalid';

export class CompactionAmendError extends Error {
  constructor(
    readonly code: AmendmentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CompactionAmendError';
  }
}

export const amendmentSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('pin'),
    entryIds: z.array(z.number().int().positive()).max(PIN_MAX_ITEMS).optional(),
    facts: z
      .array(z.strictObject({ kind: z.enum(FACT_KINDS), value: z.string().trim().min(1).max(PIN_FACT_MAX_CHARS) }))
      .max(PIN_MAX_ITEMS)
      .optional(),
  }),
  // Its length is checked with the amendment, in characters a person counts (entry.ts summaryTooLong).
  z.strictObject({ kind: z.literal('edit'), summary: z.string() }),
  z.strictObject({ kind: z.literal('undo'), reason: z.string().max(1000).optional() }),
]);
export type Amendment = z.infer<typeof amendmentSchema>;

/**
 * The compaction anchor amendments apply to now. With `expected`, it must be that one: a button
 * pressed on a page showing an older state amends nothing.
 */
export function compactionInForce(view: EffectiveView, getEntry: GetEntry, expected?: number): ViewAnchor {
  const anchor = amendableAnchor(view.anchors);
  if (anchor === null || !isCompactionAnchor(getEntry(anchor.entryId))) {
    const compactions = view.anchors.filter((a) => a.name.startsWith('compaction/'));
    const why =
      anchor !== null
        ? `the anchor in force is ${anchor.name} at entry ${anchor.entryId}, not a compaction`
        : compactions.length > 0
          ? `every compaction of it is undone (${compactions.map((a) => `${a.name}#${a.entryId}`).join(', ')})`
          : 'it has no compaction';
    throw new CompactionAmendError('no_compaction', `nothing to amend in this session: ${why}`);
  }
  if (expected !== undefined && expected !== anchor.entryId) {
    throw new CompactionAmendError(
      'stale',
      `entry ${expected} is not the compaction in force (that is ${anchor.name} at entry ${anchor.entryId}); reload and try again`,
    );
  }
  return anchor;
}

/** What a context shows of an entry (pinnedContext.ts lays it out); anything else is no conversation. */
const PINNABLE_KINDS: readonly Kind[] = ['message', 'tool_call', 'tool_result', 'error'];
const KIND_WORDS: Record<Kind, string> = {
  message: 'message',
  system: 'system entry',
  tool_call: 'tool call',
  tool_result: 'tool result',
  error: 'error',
  anchor: 'anchor',
  event: 'event',
};

function checkPinnedEntries(view: EffectiveView, anchor: ViewAnchor, entryIds: readonly number[], getEntry: GetEntry): void {
  const shown = new Set<number>();
  for (const i of contextItems(view, cursorOf(getEntry(anchor.entryId))))
    shown.add(i.kind === 'message' ? i.message.entryId : i.kind === 'result' ? i.result.entryId : i.call.entryId);
  for (const id of entryIds) {
    if (id > view.headEntryId) throw new CompactionAmendError('invalid', `entry ${id} is not in the session (its last entry is ${view.headEntryId})`);
    if (id >= anchor.entryId)
      throw new CompactionAmendError('invalid', `entry ${id} is not before the compaction at entry ${anchor.entryId}: only what it replaced can be pinned`);
    const e: Entry = getEntry(id);
    if (!PINNABLE_KINDS.includes(e.kind))
      throw new CompactionAmendError(
        'invalid',
        `entry ${id} is a ${e.name} ${KIND_WORDS[e.kind]}; only messages, tool calls, tool results and errors can be pinned`,
      );
    if (shown.has(id)) throw new CompactionAmendError('invalid', `entry ${id} is already in the context after the compaction; pinning it would send it twice`);
  }
}

const entryList = (ids: readonly number[]): string => `${ids.length === 1 ? 'entry' : 'entries'} ${ids.join(', ')}`;

/** The entry an amendment would append, and for a pin the entries it asked for that a pin already names. */
export interface AmendmentPlan {
  entry: NewEntry;
  alreadyPinned: number[];
}

/**
 * The entry appending `amendment` to the compaction `anchor` would write (checked; nothing is
 * written). A pin's entries are written in entry order, once each, without those an earlier pin of
 * the anchor names: the context lays a pin's entries out as written, and the builder in use
 * (agent-tape/assemble@2) must rebuild recorded requests as they were, so the order is settled here.
 */
export function amendmentEntry(view: EffectiveView, anchor: ViewAnchor, amendment: Amendment, getEntry: GetEntry): AmendmentPlan {
  const data: JsonObject = { anchorEntryId: anchor.entryId };
  let name: string;
  let alreadyPinned: number[] = [];
  switch (amendment.kind) {
    case 'pin': {
      const asked = [...new Set(amendment.entryIds ?? [])].sort((a, b) => a - b);
      const facts = amendment.facts ?? [];
      if (asked.length + facts.length === 0) throw new CompactionAmendError('invalid', 'a pin names at least one entry or fact');
      checkPinnedEntries(view, anchor, asked, getEntry);
      const load = (id: number): Entry | undefined => (id > 0 && id <= view.headEntryId ? getEntry(id) : undefined);
      const pinned = pinnedOf(anchor.amendments, load);
      const pinnedIds = new Set(pinned.entries.map((p) => p.entryId));
      const pinnedFacts = new Set(pinned.facts.map((f) => `${f.kind}\u0000${f.value}`));
      alreadyPinned = asked.filter((id) => pinnedIds.has(id));
      const entryIds = asked.filter((id) => !pinnedIds.has(id));
      if (entryIds.length === 0 && facts.every((f) => pinnedFacts.has(`${f.kind}\u0000${f.value}`))) {
        const what = [alreadyPinned.length > 0 ? entryList(alreadyPinned) : null, facts.length > 0 ? (facts.length === 1 ? 'the fact' : 'the facts') : null];
        throw new CompactionAmendError(
          'invalid',
          `${what.filter((w) => w !== null).join(' and ')} ${alreadyPinned.length + facts.length === 1 ? 'is' : 'are'} already pinned`,
        );
      }
      if (entryIds.length > 0) data.entryIds = entryIds;
      if (facts.length > 0) data.facts = facts.map((f) => ({ kind: f.kind, value: f.value }));
      name = PIN_EVENT;
      break;
    }
    case 'edit': {
      if (amendment.summary.trim() === '') throw new CompactionAmendError('invalid', 'the new summary is empty');
      const tooLong = summaryTooLong(amendment.summary);
      if (tooLong !== null) throw new CompactionAmendError('invalid', tooLong);
      data.summary = amendment.summary;
      name = SUMMARY_EDIT_EVENT;
      break;
    }
    case 'undo':
      if (amendment.reason !== undefined) data.reason = amendment.reason;
      name = UNDO_EVENT;
      break;
  }
  return { entry: { kind: 'event', name, payload: { name, data } }, alreadyPinned };
}
