import { readerOf, type TapeReader } from '../../store/lineage';
import type { TapeStore } from '../../store/tapeStore';
import { FoldCache } from '../../tape/foldCache';
import { SessionHandle } from './sessionHandle';
import type { TapeParts } from './tapeParts';

/**
 * An open store as hosts use it: its lineage reader and one fold cache shared by every session
 * handle it hands out, so a host that builds an agent session per request refolds only what is new.
 * One per TapeStore: the store's owner (the workspace tape, a CLI command) keeps it.
 */
export class OpenTape implements TapeParts {
  readonly reader: TapeReader;
  readonly folds: FoldCache;

  constructor(readonly store: TapeStore) {
    this.reader = readerOf(store);
    this.folds = new FoldCache(this.reader);
  }

  session(sessionId: string): SessionHandle {
    return new SessionHandle(this, sessionId);
  }
}
