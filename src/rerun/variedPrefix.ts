import type { GetEntry } from '../tape/context';
import type { Entry } from '../tape/entry';
import type { FoldRow } from '../tape/fold';
import type { FoldCache } from '../tape/foldCache';
import type { IncludedItem } from '../tape/manifest';
import type { PrefixReplay } from './prefixReplay';
import { RebuildError } from './rebuildError';
import type { Variation } from './variation';

/**
 * A tape prefix as a variation changes it: what its drops leave out of the fold and what its edits
 * (the system prompt in force among them) change in the entries the builder reads. A re-run's own
 * request, the requests a continued re-run assembles after it, and verification of both see the
 * same varied prefix.
 */

/** The prefix `replay` serves up to `latestEntryId` under `v`: its folds and the entries as edited. */
export function variedPrefix(
  replay: PrefixReplay,
  latestEntryId: number,
  v: Variation,
  byEntry?: ReadonlyMap<number, IncludedItem>,
): { folds: FoldCache; getEntry: GetEntry } {
  const folds = replay.at(latestEntryId, omittedRows(replay.rows, latestEntryId, v.drop ?? [], byEntry)).folds;
  const edits = new Map<number, string>((v.edit ?? []).map((e) => [e.entryId, e.content]));
  if (v.systemPrompt !== undefined) {
    const prompt = folds.view(replay.sessionId, { includePending: false }).systemPromptEntryId;
    if (prompt !== null) edits.set(prompt, v.systemPrompt);
  }
  return { folds, getEntry: editedEntries(replay.getEntry, edits) };
}

/**
 * The fold rows a drop leaves out, so the fold itself decides what remains: a message goes with
 * all its versions (and so with its tool calls and results), a tool call or result with both rows
 * of its pair (pairs are never split), the system prompt with every prompt before it. With
 * `byEntry` (the request's items), only what the request's context holds may be dropped.
 */
export function omittedRows(rows: readonly FoldRow[], cap: number, drop: readonly number[], byEntry?: ReadonlyMap<number, IncludedItem>): ReadonlySet<number> {
  const omit = new Set<number>();
  for (const id of drop) {
    if (byEntry !== undefined && !byEntry.has(id)) throw new RebuildError('invalid_variation', `cannot drop entry #${id}: it is not in the request's context`);
    const row = rows.find((r) => r.entryId === id);
    if (row === undefined) throw new RebuildError('invalid_variation', `cannot drop entry #${id}: the session has no such entry`);
    const goes = (r: FoldRow): boolean => {
      if (r.entryId > cap) return false;
      switch (row.kind) {
        case 'message':
          return r.kind === 'message' && r.messageId === row.messageId;
        case 'tool_call':
        case 'tool_result':
          return (r.kind === 'tool_call' || r.kind === 'tool_result') && r.messageId === row.messageId && r.toolCallId === row.toolCallId;
        default:
          return r.kind === row.kind && r.name === row.name;
      }
    };
    for (const r of rows) if (goes(r)) omit.add(r.entryId);
  }
  return omit;
}

/** `getEntry` with the context text of the edited entries replaced: what the builder reads of each kind. */
export function editedEntries(getEntry: (id: number) => Entry, edits: ReadonlyMap<number, string>): (id: number) => Entry {
  if (edits.size === 0) return getEntry;
  return (id) => {
    const entry = getEntry(id);
    const text = edits.get(id);
    if (text === undefined) return entry;
    const field = entry.kind === 'tool_call' ? 'input' : entry.kind === 'tool_result' ? 'output' : 'content';
    return { ...entry, payload: { ...entry.payload, [field]: text } };
  };
}
