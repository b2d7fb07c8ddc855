import type { ViewAnchor } from '../tape/anchorFold';
import type { CompactionAmendment } from '../protocol/inspector';

/**
 * How the next context fits after an amendment, as the session handle's receipt says it
 * (src/agent/session/amendCompaction.ts; restated here, the inspector does not import the agent).
 */
export interface ContextFitInfo {
  anchorEntryId: number | null;
  estimatedTokens: number;
  budget: number | null;
  outOfBudget: readonly number[];
}

/** What the inspector needs of an amendment's receipt. */
export interface AmendmentReceiptInfo {
  entry: { entryId: number };
  anchorEntryId: number;
  /** The entries asked for that were already pinned, so not pinned again. */
  alreadyPinned?: readonly number[];
  fit: ContextFitInfo;
}

/** The left-out entries named one by one, up to this many; a count says the rest. */
const MAX_NAMED = 10;
const numberFormat = new Intl.NumberFormat('en-US');
const n = (x: number): string => numberFormat.format(x);
/** A pinned fact may be a page long; the message names it by its start. */
const MAX_FACT_CHARS = 80;
const cut = (s: string): string => (s.length > MAX_FACT_CHARS ? `${s.slice(0, MAX_FACT_CHARS - 1)}…` : s);

/** "the next request starts from …; ~N tokens of a budget of M; K entries would be left out: #a, #b…" */
export function fitText(fit: ContextFitInfo, anchors: readonly ViewAnchor[]): string {
  const from =
    fit.anchorEntryId === null ? 'the session start' : `${anchors.find((a) => a.entryId === fit.anchorEntryId)?.name ?? 'the anchor'} #${fit.anchorEntryId}`;
  const start = `The next request starts from ${from}`;
  if (fit.budget === null) return `${start}; about ${n(fit.estimatedTokens)} tokens, and no recorded request gives a window to fit them to.`;
  const size = `about ${n(fit.estimatedTokens)} tokens of a budget of ${n(fit.budget)}`;
  const out = fit.outOfBudget;
  if (out.length === 0) return `${start}; ${size}; everything fits.`;
  const named = out.slice(0, MAX_NAMED).map((id) => `#${id}`);
  const more = out.length > MAX_NAMED ? ` and ${n(out.length - MAX_NAMED)} more` : '';
  return `${start}; ${size}; ${n(out.length)} ${out.length === 1 ? 'entry' : 'entries'} would be left out: ${named.join(', ')}${more}.`;
}

/** What was appended, in words, and for an undo what the next context then holds. */
export function amendmentMessage(amendment: CompactionAmendment, receipt: AmendmentReceiptInfo, anchors: readonly ViewAnchor[]): string {
  const at = `entry #${receipt.entry.entryId}`;
  const of = `the compaction #${receipt.anchorEntryId}`;
  switch (amendment.kind) {
    case 'pin': {
      const facts = amendment.facts ?? [];
      const already = receipt.alreadyPinned ?? [];
      const entries = [...new Set(amendment.entryIds ?? [])].filter((id) => !already.includes(id)).sort((a, b) => a - b);
      const what = [
        facts.length === 1 ? `${facts[0].kind} "${cut(facts[0].value)}"` : facts.length > 1 ? `${n(facts.length)} facts` : null,
        entries.length === 0 ? null : `${entries.length === 1 ? 'entry' : 'entries'} ${entries.map((id) => `#${id}`).join(', ')}`,
      ].filter((s) => s !== null);
      const skipped =
        already.length === 0
          ? ''
          : ` ${already.length === 1 ? 'Entry' : 'Entries'} ${already.map((id) => `#${id}`).join(', ')} ${already.length === 1 ? 'was' : 'were'} already pinned.`;
      return `Pinned ${what.join(' and ')} to ${of} (${at}): later requests include it after the summary.${skipped}`;
    }
    case 'edit':
      return `Edited the summary of ${of} (${at}): later requests read the new one.`;
    case 'undo':
      return `Undid ${of} (${at}). ${fitText(receipt.fit, anchors)}`;
  }
}
