import * as assert from 'assert';
import type { TapeStore } from '../../../src/store/tapeStore';
import { FoldCache } from '../../../src/tape/foldCache';
import { tokenUsageProjection } from '../../../src/tape/projections/tokenUsage';

/** An ingested session's folded transcript as `role: text` lines, as a user reads it. */
export function conversation(store: TapeStore, sessionId: string): string[] {
  const view = new FoldCache(store).view(sessionId, { includePending: false });
  return view.messages
    .map((m) => store.requireEntry(sessionId, m.entryId).payload)
    .filter((p) => p.content !== '')
    .map((p) => `${String(p.role)}: ${String(p.content)}`);
}

/** Every call of the folded session with its result's status and output; each must have one. */
export function calls(store: TapeStore, sessionId: string): [string, string, string, unknown][] {
  const view = new FoldCache(store).view(sessionId, { includePending: false });
  return view.toolCalls.map((c) => {
    const result = view.toolFacts.get(c.messageId)?.results.get(c.toolCallId);
    assert.ok(result, `call ${c.toolCallId} has its result`);
    const r = store.requireEntry(sessionId, result.entryId).payload;
    return [c.toolCallId, c.name, String(r.status), r.output];
  });
}

/** The session's token usage as the tokenUsage projection sums it. */
export const usageOf = (store: TapeStore, sessionId: string) => store.entries(sessionId).reduce(tokenUsageProjection.apply, tokenUsageProjection.init());
