import * as z from 'zod';
import { TapeValidationError, type JsonObject, type NewEntry } from './entry';

/** Lowercase words and digits joined by `-` or `_`: the part after `handoff/`. */
export const handoffName = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, 'use lowercase words and digits joined by "-" or "_", e.g. "fix-db"');

/**
 * A handoff anchor. The caller's state is nested under `state`, never spread, so no key of it can
 * pass for bookkeeping such as `cursorOrderSeq` and move the cursor.
 */
export function handoffAnchorEntry(name: string, summary: string, state?: JsonObject): NewEntry {
  const checked = handoffName.safeParse(name);
  if (!checked.success) throw new TapeValidationError(`handoff name ${JSON.stringify(name)}: ${z.prettifyError(checked.error)}`);
  if (summary.trim() === '') throw new TapeValidationError('a handoff needs a non-empty summary');
  const entryName = `handoff/${name}`;
  const anchorState: JsonObject = { summary: summary.trim() };
  if (state !== undefined) anchorState.state = state;
  return { kind: 'anchor', name: entryName, payload: { name: entryName, state: anchorState } };
}
