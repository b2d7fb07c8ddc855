import { parentOf } from '../store/forks';
import { linkedChildren } from '../store/subagentLinks';
import type { TapeStore } from '../store/tapeStore';
import type { Entry } from '../tape/entry';
import { FORK_MERGE, SUBAGENT_START } from '../tape/entryNames';
import { FORK_START_ENTRY_ID, mergedFromOf, mergeReceiptData, subagentStartState } from '../tape/fork';
import { turnSpanAt, type SessionPlacement, type SpanLink } from './genAiSpans';
import { spanIdOf, traceIdOf } from './spanIds';

/**
 * Where a session's spans go among the tape's: a subagent's turns are children of the call that
 * started it, in its parent's trace (the trace of the session at the top of the subagent chain); a
 * fork is a trace of its own whose first turn links to the turn it was forked from, and a merge
 * links the parent's turn to the fork's last turn. A merged fork's copies in its parent are left to
 * the fork's spans while the fork is on the tape, so no request is counted twice.
 */

/** The session at the top of `sessionId`'s subagent chain (a loop on a damaged tape ends where it closes). */
function traceRootOf(store: TapeStore, sessionId: string): string {
  const seen = new Set([sessionId]);
  let root = sessionId;
  for (let p = parentOf(store, root); p !== null && p.relation === 'subagent' && !seen.has(p.sessionId); p = parentOf(store, root)) {
    seen.add(p.sessionId);
    root = p.sessionId;
  }
  return root;
}

const skipOf =
  (store: TapeStore) =>
  (e: Entry): boolean => {
    const from = mergedFromOf(e);
    return from !== null && store.headEntryId(from.sessionId) > 0;
  };

/** The span of the turn of `sessionId` holding entry `entryId`, as that session's projection names it. */
function turnSpanOf(store: TapeStore, sessionId: string, entryId: number): string | null {
  const skip = skipOf(store);
  return turnSpanAt(
    sessionId,
    store.entries(sessionId, { toEntryId: entryId }).filter((e) => !skip(e)),
    entryId,
  );
}

/** The call that started subagent `sessionId` in `parentId`: its tool span, else the turn of the link. */
function subagentParentSpan(store: TapeStore, parentId: string, sessionId: string): string | null {
  const link = linkedChildren(store, parentId).find((l) => l.childSessionId === sessionId);
  const second = store.getEntry(sessionId, FORK_START_ENTRY_ID);
  const start = second?.kind === 'anchor' && second.name === SUBAGENT_START ? subagentStartState.safeParse(second.payload.state) : null;
  const toolCallId = typeof link?.toolCallId === 'string' ? link.toolCallId : start?.success ? start.data.toolCallId : undefined;
  // The last call of that id up to the link: a model may use a call id again in a later turn.
  const calls = toolCallId === undefined ? [] : store.entries(parentId, { kind: 'tool_call', toEntryId: link?.receiptEntryId });
  const call = calls.reverse().find((e) => e.payload.toolCallId === toolCallId);
  if (call !== undefined) return spanIdOf(parentId, 'tool', call.entryId);
  return link === undefined ? null : turnSpanOf(store, parentId, link.receiptEntryId);
}

export function sessionPlacement(store: TapeStore, sessionId: string, agent: string): SessionPlacement {
  const parent = parentOf(store, sessionId);
  const firstTurnLinks: SpanLink[] = [];
  let parentSpanId: string | null = null;
  if (parent?.relation === 'subagent') parentSpanId = subagentParentSpan(store, parent.sessionId, sessionId);
  else if (parent?.relation === 'fork' && parent.at !== null) {
    const spanId = turnSpanOf(store, parent.sessionId, parent.at);
    if (spanId !== null) {
      firstTurnLinks.push({
        traceId: traceIdOf(traceRootOf(store, parent.sessionId)),
        spanId,
        attributes: { 'agent_tape.relation': 'forked_from', 'agent_tape.session_id': parent.sessionId, 'agent_tape.entry_id': parent.at },
      });
    }
  }
  const linksAt = new Map<number, SpanLink>();
  for (const e of store.entries(sessionId, { kind: 'event', name: FORK_MERGE })) {
    const receipt = mergeReceiptData.safeParse(e.payload.data);
    if (!receipt.success || parentOf(store, receipt.data.forkSessionId)?.sessionId !== sessionId) continue;
    const spanId = turnSpanOf(store, receipt.data.forkSessionId, receipt.data.forkHeadEntryId);
    if (spanId === null) continue;
    linksAt.set(e.entryId, {
      traceId: traceIdOf(receipt.data.forkSessionId),
      spanId,
      attributes: { 'agent_tape.relation': 'merged', 'agent_tape.session_id': receipt.data.forkSessionId, 'agent_tape.entry_id': receipt.data.forkHeadEntryId },
    });
  }
  return { sessionId, agent, traceId: traceIdOf(traceRootOf(store, sessionId)), parentSpanId, firstTurnLinks, linksAt, skip: skipOf(store) };
}
