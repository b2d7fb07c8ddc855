import type { FileEvent } from './fileChange';

/**
 * Each line of `current` (the file as it is now; a final line break ends the last line rather than
 * starting another) with the origin of the event that last wrote it, or null: a person's line, or
 * one from before the tape. `events` are the file's history, oldest first.
 */
export function attributeLines<O>(current: string, events: readonly FileEvent<O>[]): (O | null)[] {
  void current;
  void events;
  throw new Error('attributeLines: not built yet');
}
