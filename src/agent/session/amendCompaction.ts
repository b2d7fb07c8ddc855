import { VIEW_ASSEMBLED } from '../../tape/entryNames';
import * as z from 'zod';
import { amendmentEntry, amendmentSchema, CompactionAmendError, compactionInForce } from '../../tape/audit/compactionAmendment';
import { assembleFromCache } from '../../tape/contextAssembly';
import type { Entry } from '../../tape/entry';
import { manifestOfEntry, type ViewManifest } from '../../tape/manifest';
import { TokenEstimator } from '../model/tokenEstimator';
import type { TapeParts } from './tapeParts';

/** How the next request's context fits after an amendment: an undo brings back history that may not. */
export interface ContextFit {
  /** The anchor the next context starts from; null for the session start. */
  anchorEntryId: number | null;
  /** Estimated prompt tokens of the next context after fitting, tool definitions included. */
  estimatedTokens: number;
  /**
   * The input budget of the session's last recorded request (its window less output and reserve);
   * null when the session recorded none, so there is no window to fit to.
   */
  budget: number | null;
  /** Entries the next request would leave out to fit that budget, oldest first. */
  outOfBudget: number[];
}

export interface AmendReceipt {
  /** The amendment, at its position in the session's view. */
  entry: Entry;
  /** The compaction it amends. */
  anchorEntryId: number;
  /** The entries a pin asked for that an earlier pin already names, and so were not pinned again. */
  alreadyPinned: number[];
  fit: ContextFit;
}

const NO_WINDOW = 2 ** 31;

function lastManifest(tape: TapeParts, sessionId: string): ViewManifest | null {
  const requests = tape.reader.entries(sessionId, { kind: 'event', name: VIEW_ASSEMBLED });
  for (let i = requests.length - 1; i >= 0; i--) {
    try {
      return manifestOfEntry(requests[i]);
    } catch {
      // A request whose manifest does not read says nothing about the window; an older one may.
    }
  }
  return null;
}

/**
 * The next request's context as the agent would assemble it, with the window of the last recorded
 * request and tokens estimated from characters (calibration lives with a running model, not the
 * tape), its tool definitions counted as that request counted them.
 */
export function nextContextFit(tape: TapeParts, sessionId: string): ContextFit {
  const recorded = lastManifest(tape, sessionId);
  const estimator = new TokenEstimator();
  const toolTokens = recorded === null ? 0 : Math.max(0, recorded.tokenBudget.estimatedPrompt - recorded.included.reduce((n, i) => n + i.tokens, 0));
  const model =
    recorded === null
      ? { id: 'none', vendor: 'none', contextWindow: NO_WINDOW, maxOutput: 0 }
      : { ...recorded.model, contextWindow: recorded.tokenBudget.contextWindow, maxOutput: recorded.tokenBudget.maxOutput };
  const { manifest } = assembleFromCache(tape.folds, {
    sessionId,
    turnId: 'next',
    requestSeq: 0,
    viewId: 'next',
    assembledAt: 0,
    getEntry: (id) => tape.reader.requireEntry(sessionId, id),
    model,
    tools: [],
    countTokens: (input) => (typeof input === 'string' ? toolTokens : estimator.count(input)),
  });
  const outOfBudget = manifest.excluded.filter((e) => e.reason === 'out_of_budget').map((e) => e.entryId);
  return {
    anchorEntryId: manifest.anchorEntryId,
    estimatedTokens: manifest.tokenBudget.estimatedPrompt,
    budget: recorded === null ? null : manifest.tokenBudget.contextWindow - manifest.tokenBudget.maxOutput - manifest.tokenBudget.reserve,
    outOfBudget,
  };
}

/**
 * Appends one amendment of the compaction in force (a pin, an edited summary, an undo), durably:
 * the next request, perhaps another program's, honours it. `expectedAnchor` guards a page that may
 * show an older state. Throws CompactionAmendError (`no_compaction`, `stale`, `invalid`) and then
 * writes nothing.
 */
export async function amendCompaction(tape: TapeParts, sessionId: string, amendment: unknown, expectedAnchor?: number): Promise<AmendReceipt> {
  const parsed = amendmentSchema.safeParse(amendment);
  if (!parsed.success) throw new CompactionAmendError('invalid', `not an amendment: ${z.prettifyError(parsed.error)}`);
  const getEntry = (id: number): Entry => tape.reader.requireEntry(sessionId, id);
  const view = tape.folds.view(sessionId, { includePending: false });
  const anchor = compactionInForce(view, getEntry, expectedAnchor);
  const plan = amendmentEntry(view, anchor, parsed.data, getEntry);
  const { entry } = await tape.store.append(sessionId, plan.entry, { durable: true });
  return {
    entry: tape.reader.requireEntry(sessionId, tape.reader.positionOf(sessionId, entry.entryId)),
    anchorEntryId: anchor.entryId,
    alreadyPinned: plan.alreadyPinned,
    fit: nextContextFit(tape, sessionId),
  };
}
