import type { ReadableTape } from '../../store/lineage';
import type { FoldCache } from '../../tape/foldCache';

/**
 * What every session of an open tape shares: the store, its one lineage reader and the one fold
 * cache over that reader. The OpenTape is one; the agent's own parts take this, not the OpenTape,
 * because the session handle that the OpenTape hands out builds them.
 */
export interface TapeParts extends ReadableTape {
  readonly folds: FoldCache;
}
