import { PROVIDER_ERROR } from '../tape/entryNames';
import type { TapeStore } from '../store/tapeStore';
import { alsoInRangeOf } from '../tape/audit/alsoInRange';
import { compactionAnchorEntry, coverageOf, type CompactionAnchorInit, type CompactionTrigger } from '../tape/compactionAnchor';
import { auditCompaction, type CompactionAudit } from '../tape/audit/compactionAudit';
import { buildContext, contextItems, cursorOf, resolveSelector } from '../tape/context';
import type { Entry, JsonObject } from '../tape/entry';
import { errorMessage } from '../tape/errorMessage';
import { compactionRequest, parseCompactionAnswer, renderSummary } from './compaction';
import type { ModelPort, Usage } from './model/modelPort';
import { ProviderError } from './model/providerError';
import type { TapeParts } from './session/tapeParts';

export interface CompactOptions {
  trigger: CompactionTrigger;
  signal: AbortSignal;
  /**
   * Messages from this orderSeq on stay after the cursor, unsummarised: a compaction before a
   * request of a turn in progress must leave that turn's input for the request to answer.
   */
  keepFromOrderSeq?: number;
}

/** The anchor written, and the audit of its summary (what it kept of the range, before the list of what it missed). */
export type CompactOutcome = { anchor: Entry; audit: CompactionAudit } | { error: string };

/**
 * Summarises the context in force and appends a `compaction/<trigger>` anchor after it; the next
 * request starts from the anchor and nothing is deleted. A failed summary request is recorded as
 * an `error/provider` entry and returned, so the caller can go on with budget trimming instead.
 * The anchor comes back at its position in the session's view (in a fork, numbered on from the parent).
 */
export async function compact(tape: TapeParts, sessionId: string, model: ModelPort, options: CompactOptions): Promise<CompactOutcome> {
  const { store, reader } = tape;
  const getEntry = (id: number): Entry => reader.requireEntry(sessionId, id);
  const view = tape.folds.view(sessionId, { includePending: false });
  const { anchorEntryId } = resolveSelector(view.anchors, { kind: 'last' });
  const items = contextItems(view, anchorEntryId === null ? null : cursorOf(getEntry(anchorEntryId)));
  const keep = options.keepFromOrderSeq;
  const kept = keep === undefined ? -1 : items.findIndex((i) => i.kind === 'message' && i.message.orderSeq >= keep);
  const coverage = coverageOf(kept < 0 ? items : items.slice(0, kept));
  if (coverage === null) return { error: `nothing to compact: no message after the anchor in force${keep === undefined ? '' : ' before the input'}` };
  let messages = buildContext({ view, anchorEntryId }, getEntry).messages;
  if (kept >= 0) {
    const covered = new Set(coverage.sourceEntryIds);
    // The checkpoint in force (entry-less, no tool call) is summarised again; the kept part is not.
    messages = messages.filter((m) => (m.entryId === null ? m.toolCallId === undefined : covered.has(m.entryId)));
  }
  const request = compactionRequest(messages, model.info);

  let answer = '';
  let usage: Usage | undefined;
  let cancelled = false;
  try {
    for await (const event of model.stream(request, options.signal)) {
      if (event.type === 'text') answer += event.delta;
      else if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'stop') cancelled = event.reason === 'cancelled';
    }
  } catch (e) {
    // A cancel is the user's choice, not a provider failure, however the adapter reports it.
    if (!options.signal.aborted) return providerFailure(store, sessionId, options.trigger, e);
    cancelled = true;
  }
  // Nothing is written for a cancel.
  if (cancelled || options.signal.aborted) return { error: 'compaction cancelled' };
  const parsed = parseCompactionAnswer(answer);
  if (parsed === null) return providerFailure(store, sessionId, options.trigger, new ProviderError('bad_response', { detail: 'the summary was empty' }));

  const init: CompactionAnchorInit = { trigger: options.trigger, summary: renderSummary(parsed), ...coverage, model: model.info, usage };
  const audit = auditOfSummary(tape, sessionId, init);
  const { entry: stored } = await store.append(sessionId, compactionAnchorEntry({ ...init, alsoInRange: alsoInRangeOf(audit) }));
  const anchor = reader.requireEntry(sessionId, reader.positionOf(sessionId, stored.entryId));
  return { anchor, audit: { ...audit, anchorEntryId: anchor.entryId } };
}

/**
 * The audit of a summary before its anchor is written: the anchor, as it would be appended next,
 * over the session's entries. Its range is the history the summary replaces whatever comes after.
 */
function auditOfSummary(tape: TapeParts, sessionId: string, init: CompactionAnchorInit): CompactionAudit {
  const entries = tape.reader.entries(sessionId);
  const entryId = tape.reader.headEntryId(sessionId) + 1;
  const { kind, name, payload } = compactionAnchorEntry(init);
  const anchor: Entry = { sessionId, entryId, kind, name, payload, provenanceKey: null, meta: {}, createdAt: 0 };
  return auditCompaction([...entries, anchor], entryId);
}

async function providerFailure(store: TapeStore, sessionId: string, trigger: CompactionTrigger, e: unknown): Promise<CompactOutcome> {
  const message = `compaction (${trigger}) failed: ${errorMessage(e)}`;
  const details: JsonObject = { operation: 'compaction', trigger };
  if (e instanceof ProviderError) {
    details.failureClass = e.failureClass;
    if (e.status !== undefined) details.status = e.status;
  }
  await store.append(sessionId, { kind: 'error', name: PROVIDER_ERROR, payload: { kind: 'provider', message, details } });
  return { error: message };
}
