import { openTapeFile } from '../../store/tapeFile';
import type { TapeStore } from '../../store/tapeStore';

/** Runs `fn` on a tape opened read-only (reads never take the writer's lock), then closes it. */
export async function withTape<T>(file: string, fn: (store: TapeStore) => T | Promise<T>): Promise<T> {
  const store = await openTapeFile(file, { readOnly: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
