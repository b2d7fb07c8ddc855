import { OpenTape } from '../../agent/session/openTape';
import { openTapeFile } from '../../store/tapeFile';

/** Runs `fn` on a tape opened read-only (reads never take the writer's lock), then closes it. */
export async function withTape<T>(file: string, fn: (tape: OpenTape) => T | Promise<T>): Promise<T> {
  const store = await openTapeFile(file, { readOnly: true });
  try {
    return await fn(new OpenTape(store));
  } finally {
    await store.close();
  }
}
