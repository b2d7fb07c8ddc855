import { openTapeFile } from '../store/tapeFile';
import type { TapeStore } from '../store/tapeStore';

/** The tape a replay reads, and how to let go of it when the replay ends. */
export interface ReplayTape {
  store: TapeStore;
  /** The file the replay names in its documents and cursor events. */
  file: string;
  release(): Promise<void>;
}

/**
 * A tape file opened for a replay: read-only (no lock, no journal, never written), a `.tape.jsonl`
 * loaded into memory. A missing, misnamed or damaged file is refused with the store's own message.
 */
export async function openReplayTape(file: string): Promise<ReplayTape> {
  const store = await openTapeFile(file, { readOnly: true });
  return { store, file, release: () => store.close() };
}
