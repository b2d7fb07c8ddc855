import type { CompactionAudit, FactKind } from './compactionAudit';
import type { JsonObject } from '../entry';
import { oneLine } from '../oneLine';

/**
 * The "also in this range" list a compaction anchor carries for the context (issue 20): the facts
 * of the range its summary does not mention, so the next request keeps them and can read any of
 * them back by entry id. Short by design: errors first, then commands, paths and requests (a tool
 * name alone tells the model nothing), each on one line with the first entries it occurs at.
 */

export const ALSO_IN_RANGE_MAX_FACTS = 40;
const VALUE_MAX_CHARS = 300;
const ENTRY_IDS_MAX = 5;
const ORDER: readonly FactKind[] = ['error', 'command', 'path', 'request'];

export interface AlsoInRangeFact extends JsonObject {
  kind: FactKind;
  value: string;
  entryIds: number[];
}

export function alsoInRangeOf(audit: CompactionAudit): AlsoInRangeFact[] {
  const missed = audit.facts.filter((f) => !f.inSummary);
  return ORDER.flatMap((kind) => missed.filter((f) => f.kind === kind))
    .slice(0, ALSO_IN_RANGE_MAX_FACTS)
    .map((f) => ({ kind: f.kind, value: oneLine(f.value, VALUE_MAX_CHARS), entryIds: f.entryIds.slice(0, ENTRY_IDS_MAX) }));
}
