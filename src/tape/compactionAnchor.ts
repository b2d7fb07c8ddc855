import type { AlsoInRangeFact } from './audit/alsoInRange';
import { ALSO_IN_RANGE, type ContextItem } from './context';
import type { JsonObject, NewEntry } from './entry';
import type { ModelInfo, Usage } from './modelRequest';

/**
 * A compaction anchor (SPEC 2.5) stands for the history before its cursor, so the next request
 * starts from its summary. The agent's compactor writes one from a model's summary; an ingest maps
 * another agent's compaction to one.
 */

export type CompactionTrigger = 'manual' | 'auto';

export interface Coverage {
  /** The last orderSeq the summary covers: the cursor after which the next context resumes. */
  cursorOrderSeq: number;
  /** The messages, tool calls and results summarised. */
  sourceEntryIds: number[];
}

/**
 * What a summary of these context items covers (the items after the anchor in force); null when
 * there is no message to summarise. Interrupted calls have no result entry to name.
 */
export function coverageOf(items: readonly ContextItem[]): Coverage | null {
  let cursorOrderSeq = -Infinity;
  const sourceEntryIds: number[] = [];
  for (const item of items) {
    if (item.kind === 'message') {
      cursorOrderSeq = Math.max(cursorOrderSeq, item.message.orderSeq);
      sourceEntryIds.push(item.message.entryId);
    } else if (item.kind === 'call') sourceEntryIds.push(item.call.entryId);
    else if (item.kind === 'result') sourceEntryIds.push(item.result.entryId);
  }
  // Calls and results come only after their message, so no message means nothing at all.
  return cursorOrderSeq === -Infinity ? null : { cursorOrderSeq, sourceEntryIds };
}

export interface CompactionAnchorInit extends Coverage {
  trigger: CompactionTrigger;
  summary: string;
  model: Pick<ModelInfo, 'id' | 'vendor'>;
  usage?: Usage;
  /** The facts of the range the summary missed, listed for the context after it (alsoInRange.ts). */
  alsoInRange?: readonly AlsoInRangeFact[];
}

/** Only the fields that are set: the tape refuses `undefined` inside a payload. */
function usageJson(u: Usage): JsonObject {
  const out: JsonObject = { inputTokens: u.inputTokens, outputTokens: u.outputTokens, estimated: u.estimated };
  if (u.cachedInputTokens !== undefined) out.cachedInputTokens = u.cachedInputTokens;
  return out;
}

export function compactionAnchorEntry(init: CompactionAnchorInit): NewEntry {
  const name = `compaction/${init.trigger}`;
  const state: JsonObject = {
    summary: init.summary,
    cursorOrderSeq: init.cursorOrderSeq,
    sourceEntryIds: [...init.sourceEntryIds],
    model: { id: init.model.id, vendor: init.model.vendor },
  };
  if (init.usage !== undefined) state.usage = usageJson(init.usage);
  if (init.alsoInRange !== undefined && init.alsoInRange.length > 0) state[ALSO_IN_RANGE] = init.alsoInRange.map((f) => ({ ...f, entryIds: [...f.entryIds] }));
  return { kind: 'anchor', name, payload: { name, state } };
}
