import type { ReadableTape } from '../store/lineage';
import type { Assembly, RequestFacts } from '../tape/contextAssembly';
import type { IncludedItem } from '../tape/manifest';
import { samplingOf } from '../tape/requestParams';
import { PrefixReplay } from './prefixReplay';
import { RebuildError } from './rebuildError';
import type { RebuiltRequest } from './rebuildRequest';
import { REBUILDERS, rebuilderFor, type Rebuilder } from './rebuilder';
import { variedPrefix } from './variedPrefix';

/**
 * A request after a re-run one, in the re-run's fork, under the re-run's variation: the fork's
 * whole view (the source's prefix, the re-run's answer, the results since), with the items the
 * variation dropped left out and the ones it edited (the system prompt too) edited again, and the
 * re-run request's tool set, output cap, sampling options, model and policy. So a continued
 * re-run asks the model what the varied session would have asked it, not the recorded one.
 */

export interface NextRequestSlot {
  turnId: string;
  requestSeq: number;
  viewId: string;
  assembledAt: number;
}

export function assembleVaried(
  tape: ReadableTape,
  sessionId: string,
  base: RebuiltRequest,
  slot: NextRequestSlot,
  countTokens: RequestFacts['countTokens'],
  rebuilders: readonly Rebuilder[] = REBUILDERS,
): Assembly {
  const replay = new PrefixReplay(tape.reader, sessionId);
  const head = replay.rows.at(-1)?.entryId ?? 0;
  const { variation: v, manifest, request } = base;
  const byEntry = new Map<number, IncludedItem>(base.recorded.included.flatMap((i) => (i.entryId === null ? [] : [[i.entryId, i] as const])));
  const { folds, getEntry } = variedPrefix(replay, head, v, byEntry);
  const choice = rebuilderFor(rebuilders, manifest.policy, manifest.builderVersion);
  if (!('rebuilder' in choice)) throw new RebuildError('cannot_rebuild', `cannot assemble request ${slot.turnId}/${slot.requestSeq}: ${choice.reason}`);
  return choice.rebuilder.rebuild(folds, {
    sessionId,
    ...slot,
    getEntry,
    model: { ...manifest.model, contextWindow: manifest.tokenBudget.contextWindow, maxOutput: manifest.tokenBudget.maxOutput },
    tools: request.tools,
    // The re-run manifest is of the current schema version, which always holds its parameters.
    sampling: manifest.params === undefined ? {} : samplingOf(manifest.params),
    countTokens,
  });
}
