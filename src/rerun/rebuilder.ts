import type { ContextMessage, GetEntry, PromptMessage } from '../tape/context';
import { assembleFromCache, BUILDER_BEFORE_AMENDMENTS, CURRENT_BUILDER, type Assembly, type Builder, type RequestFacts } from '../tape/contextAssembly';
import { TAPE_CONTEXT_POLICY } from '../tape/contextPolicy';
import type { FoldCache } from '../tape/foldCache';
import { contentHashOf, type ViewManifest } from '../tape/manifest';

/**
 * The context builders a recorded request can be rebuilt with (verification, re-runs), and how a
 * rebuild counts tokens: as the recording counted them.
 */

/** A context builder a rebuild can run: the policy and builder version a manifest must name. */
export interface Rebuilder {
  policy: { name: string; version: number };
  builderVersion: string;
  /** The request and its sealed manifest, from the prefix `folds` serves. */
  rebuild(folds: FoldCache, facts: RequestFacts): Assembly;
}

const rebuilderOf = (builder: Builder): Rebuilder => ({
  policy: TAPE_CONTEXT_POLICY,
  builderVersion: builder.version,
  rebuild: (folds, facts) => assembleFromCache(folds, facts, builder),
});

/** The builder of this version of Agent Tape. */
export const CURRENT_REBUILDER: Rebuilder = rebuilderOf(CURRENT_BUILDER);

/**
 * Every builder this version can rebuild with, the current one first (a re-run under another
 * builder than the recorded one uses it): a request recorded before compaction amendments is
 * rebuilt as it was, ignoring them. A tape made by another builder is `cannot_rebuild`, never
 * guessed at.
 */
export const REBUILDERS: readonly Rebuilder[] = [CURRENT_REBUILDER, rebuilderOf(BUILDER_BEFORE_AMENDMENTS)];

export type RebuilderChoice = { rebuilder: Rebuilder } | { unknown: 'policy' | 'builder'; reason: string };

const knownPolicies = (rebuilders: readonly Rebuilder[]): string =>
  [...new Set(rebuilders.map((r) => `${r.policy.name} v${r.policy.version}`))].join(', ') || 'none';

/**
 * The builder of `policy` and `builderVersion` among `rebuilders`. Without a builder version, the
 * policy's first builder: a re-run under another policy than the recorded one uses that policy's.
 */
export function rebuilderFor(rebuilders: readonly Rebuilder[], policy: Rebuilder['policy'], builderVersion?: string): RebuilderChoice {
  const forPolicy = rebuilders.filter((r) => r.policy.name === policy.name && r.policy.version === policy.version);
  if (forPolicy.length === 0) {
    return { unknown: 'policy', reason: `policy ${policy.name} v${policy.version} is unknown to this version (it knows ${knownPolicies(rebuilders)})` };
  }
  const rebuilder = builderVersion === undefined ? forPolicy[0] : forPolicy.find((r) => r.builderVersion === builderVersion);
  if (rebuilder === undefined) {
    return {
      unknown: 'builder',
      reason: `builder ${builderVersion} is unknown to this version (it has ${forPolicy.map((r) => r.builderVersion).join(', ')} for ${policy.name} v${policy.version})`,
    };
  }
  return { rebuilder };
}

/**
 * The facts of a recorded request a rebuild is handed: its identity (so the rebuilt manifest is
 * that request's) and the model facts the tape cannot know, from the manifest.
 */
export function recordedFacts(recorded: ViewManifest, sessionId: string, getEntry: GetEntry): Omit<RequestFacts, 'tools' | 'countTokens'> {
  return {
    sessionId,
    turnId: recorded.turnId,
    requestSeq: recorded.requestSeq,
    viewId: recorded.viewId,
    assembledAt: recorded.assembledAt,
    getEntry,
    model: { ...recorded.model, contextWindow: recorded.tokenBudget.contextWindow, maxOutput: recorded.tokenBudget.maxOutput },
  };
}

/** What a rebuild counts differently from the recording: what a variation changed. */
export interface CountChanges {
  /** Entries whose context text changed: counted by `count`, not as recorded. */
  changedEntries: ReadonlySet<number>;
  /** The tool definitions differ from the recorded ones: counted by `count`. */
  toolsChanged: boolean;
  /**
   * The budget or policy changed: an entry the recording dropped for the budget is counted by
   * `count` (it may fit now) instead of as more than the window.
   */
  refit: boolean;
  /** How what the recording does not know is counted. */
  count: RequestFacts['countTokens'];
}

/** Verification: nothing changed, and what the recording does not know counts 0, so it shows as the difference itself. */
export const NO_CHANGES: CountChanges = { changedEntries: new Set(), toolsChanged: false, refit: false, count: () => 0 };

/**
 * Token counts are the model's (a tokenizer, or an estimate calibrated by the server's counts as
 * the session went on), which the tape does not hold; the manifest does. Each item counts as it
 * was recorded, the tool definitions as the recorded estimate less the items. An entry the
 * recording dropped for the budget counts as more than the whole window: the rebuilt fit drops its
 * group as the recording did and, the rest counting as recorded, stops where the recording
 * stopped. What the recording does not know (an item it never had, or one `changes` names) counts
 * by `changes.count`. The builder counts the context messages it built, so their entry ids are at
 * hand.
 */
export function recordedTokens(m: ViewManifest, changes: CountChanges = NO_CHANGES): RequestFacts['countTokens'] {
  const byEntry = new Map<number, number>();
  const synthetic = new Map<string, number>();
  let items = 0;
  for (const i of m.included) {
    if (i.entryId === null) synthetic.set(i.contentHash, i.tokens);
    else byEntry.set(i.entryId, i.tokens);
    items += i.tokens;
  }
  const dropped = changes.refit ? new Set<number>() : new Set(m.excluded.filter((e) => e.reason === 'out_of_budget').map((e) => e.entryId));
  const overWindow = m.tokenBudget.contextWindow + 1;
  const tools = m.tokenBudget.estimatedPrompt - items;
  return (input) => {
    if (typeof input === 'string') return changes.toolsChanged ? changes.count(input) : tools;
    let total = 0;
    for (const message of input as readonly (PromptMessage & Partial<ContextMessage>)[]) {
      const entryId = message.entryId ?? null;
      const recorded = entryId === null ? synthetic.get(contentHashOf(message)) : changes.changedEntries.has(entryId) ? undefined : byEntry.get(entryId);
      if (recorded !== undefined) total += recorded;
      else if (entryId !== null && dropped.has(entryId)) total += overWindow;
      else total += changes.count([message]);
    }
    return total;
  };
}
