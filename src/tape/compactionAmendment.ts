import * as z from 'zod';
import { amendableAnchor, type ViewAnchor } from './anchorFold';
import { FACT_KINDS, isCompactionAnchor } from './compactionAudit';
import { contextItems, cursorOf, type GetEntry } from './context';
import { PIN_EVENT, PIN_FACT_MAX_CHARS, PIN_MAX_ITEMS, SUMMARY_EDIT_EVENT, SUMMARY_MAX_CHARS, UNDO_EVENT, type JsonObject, type NewEntry } from './entry';
import type { EffectiveView } from './fold';

/**
 * The entries that amend the compaction in force (anchorFold.ts says how they fold): a pin, an
 * edited summary, an undo. Each is checked against the session's view before it is built, so a
 * pin names only entries a later context does not already show, and nothing amends a handoff or a
 * compaction already undone.
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
  z.strictObject({ kind: z.literal('edit'), summary: z.string().max(SUMMARY_MAX_CHARS) }),
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

function checkPinnedEntries(view: EffectiveView, anchor: ViewAnchor, entryIds: readonly number[], getEntry: GetEntry): void {
  const shown = new Set<number>();
  for (const i of contextItems(view, cursorOf(getEntry(anchor.entryId))))
    shown.add(i.kind === 'message' ? i.message.entryId : i.kind === 'result' ? i.result.entryId : i.call.entryId);
  for (const id of entryIds) {
    if (id > view.headEntryId) throw new CompactionAmendError('invalid', `entry ${id} is not in the session (its last entry is ${view.headEntryId})`);
    if (id >= anchor.entryId)
      throw new CompactionAmendError('invalid', `entry ${id} is not before the compaction at entry ${anchor.entryId}: only what it replaced can be pinned`);
    if (shown.has(id)) throw new CompactionAmendError('invalid', `entry ${id} is already in the context after the compaction; pinning it would send it twice`);
  }
}

/** The entry appending `amendment` to the compaction `anchor` would write (checked; nothing is written). */
export function amendmentEntry(view: EffectiveView, anchor: ViewAnchor, amendment: Amendment, getEntry: GetEntry): NewEntry {
  const data: JsonObject = { anchorEntryId: anchor.entryId };
  let name: string;
  switch (amendment.kind) {
    case 'pin': {
      const entryIds = [...new Set(amendment.entryIds ?? [])];
      const facts = amendment.facts ?? [];
      if (entryIds.length + facts.length === 0) throw new CompactionAmendError('invalid', 'a pin names at least one entry or fact');
      checkPinnedEntries(view, anchor, entryIds, getEntry);
      if (entryIds.length > 0) data.entryIds = entryIds;
      if (facts.length > 0) data.facts = facts.map((f) => ({ kind: f.kind, value: f.value }));
      name = PIN_EVENT;
      break;
    }
    case 'edit':
      if (amendment.summary.trim() === '') throw new CompactionAmendError('invalid', 'the new summary is empty');
      data.summary = amendment.summary;
      name = SUMMARY_EDIT_EVENT;
      break;
    case 'undo':
      if (amendment.reason !== undefined) data.reason = amendment.reason;
      name = UNDO_EVENT;
      break;
  }
  return { kind: 'event', name, payload: { name, data } };
}
