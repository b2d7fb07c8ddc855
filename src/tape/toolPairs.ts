import type { NewEntry } from './entry';
import type { EffectiveView, ViewToolCall } from './fold';
import { INTERRUPTED } from './interruptedKey';
import { namedProvenanceKey } from './provenanceKey';

/**
 * Tool call/result pairing (SPEC 2.5). Providers reject a call without its result, and a crash or a
 * cancel can leave one on the tape: the context covers it with a synthetic result, and the store's
 * crash repair appends a real one.
 */

/** What the model reads in place of a result that was never recorded. */
export const INTERRUPTED_OUTPUT = 'interrupted: no result was recorded';

/** One key per (messageId, toolCallId): the fold keys tool facts the same way. */
export const pairKey = (messageId: string, toolCallId: string): string => `${messageId}\u0000${toolCallId}`;

/** The effective calls with no effective result, in call (entryId) order. */
export function unpairedToolCalls(view: EffectiveView): ViewToolCall[] {
  const answered = new Set<string>();
  for (const r of view.toolResults) answered.add(pairKey(r.messageId, r.toolCallId));
  return view.toolCalls.filter((c) => !answered.has(pairKey(c.messageId, c.toolCallId)));
}

/**
 * The error result that closes an interrupted call for good. The provenance key depends on the call
 * alone, so a repair that runs twice (two opens, two processes) writes it once; the ids are
 * URI-encoded so that ids containing "/" cannot make two calls share a key.
 */
export function interruptedResultEntry(call: ViewToolCall): NewEntry {
  return {
    kind: 'tool_result',
    name: call.name,
    provenanceKey: namedProvenanceKey(INTERRUPTED, call.messageId, call.toolCallId),
    payload: { messageId: call.messageId, toolCallId: call.toolCallId, status: 'error', output: INTERRUPTED_OUTPUT },
  };
}
