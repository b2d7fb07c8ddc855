import { RERUN_REQUEST } from '../entryNames';
import * as z from 'zod';
import { canonicalJson } from '../canonicalJson';
import type { Entry, NewEntry } from '../entry';
import { FORK_START_ENTRY_ID } from '../fork';
import { namedProvenanceKey } from '../provenanceKey';

/**
 * A re-run of one recorded request, on the tape: a fork of the source session at the point just
 * before the request's `view/assembled` (a request boundary inside its turn), whose first own
 * entry after `fork/start` is the `rerun/request` event saying what was re-run and how. The fork
 * goes on in the source request's turn (its turn id), numbering its requests on from the re-run
 * one; its messages have ids of their own (`rerunMessageId`), so a merge never mixes them with the
 * source's. A continued re-run answers a call identical to the recorded one with the recorded
 * result, marked `meta.replayedFrom`.
 */

const entryRef = z.object({ sessionId: z.string().min(1), entryId: z.number().int().positive() });
export type EntryRef = z.infer<typeof entryRef>;

const hash = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lowercase hex');

/** The `rerun/request` event's data. The variation is the replay layer's (`variationSchema`); here it is any object, as parsed there. */
export const rerunRequestData = z.looseObject({
  /** The request re-run: its session and its `view/assembled` entry (a position of that session's view). */
  sourceSessionId: z.string().min(1),
  sourceEntryId: z.number().int().positive(),
  /** The source manifest's `manifestHash`: which request, whatever happens to the tape later. */
  sourceManifestHash: hash,
  /** The source request's turn and request number, which the fork goes on in. */
  turnId: z.string().min(1),
  requestSeq: z.number().int().positive(),
  variation: z.record(z.string(), z.unknown()),
  /** The fork's own manifest: the `manifestHash` of the `view/assembled` entry that follows. */
  manifestHash: hash,
  promptHashMatches: z.boolean(),
  toolsHashMatches: z.boolean(),
  /** What the rebuild had to assume (a version 1 manifest's parameters). */
  notes: z.array(z.string()),
});
export type RerunRequestData = z.infer<typeof rerunRequestData>;

/** One per fork: a fork re-runs one request. */
export function rerunRequestEntry(forkSessionId: string, data: RerunRequestData): NewEntry {
  const parsed = rerunRequestData.parse(data);
  return {
    kind: 'event',
    name: RERUN_REQUEST,
    provenanceKey: namedProvenanceKey(RERUN_REQUEST, forkSessionId),
    payload: { name: RERUN_REQUEST, data: parsed },
    meta: { turnId: parsed.turnId },
  };
}

/** Where a re-run fork stores its `rerun/request`: the first entry after its `fork/start`. */
export const RERUN_REQUEST_ENTRY_ID = FORK_START_ENTRY_ID + 1;

/** The re-run a session is, read from its own entry `RERUN_REQUEST_ENTRY_ID` (`getEntry` of the stored entries); null for any other session. */
export const rerunOfSession = (getEntry: (entryId: number) => Entry | undefined): RerunRequestData | null => rerunRequestOf(getEntry(RERUN_REQUEST_ENTRY_ID));

/** A `rerun/request` event's data, parsed; null for any other entry or a malformed one. */
export function rerunRequestOf(entry: Entry | undefined): RerunRequestData | null {
  if (entry === undefined || entry.kind !== 'event' || entry.name !== RERUN_REQUEST) return null;
  const parsed = rerunRequestData.safeParse((entry.payload as { data?: unknown }).data);
  return parsed.success ? parsed.data : null;
}

/** The assistant message of request `requestSeq` in a re-run fork: never the source's id, which a merge would make one message. */
export const rerunMessageId = (turnId: string, forkId: string, requestSeq: number): string => `${turnId}/rerun/${forkId}/assistant/${requestSeq}`;

/** A tool call is the recorded one when its name and its arguments, as canonical JSON, are the same. */
export const sameToolCall = (a: { name: string; input: unknown }, b: { name: string; input: unknown }): boolean =>
  a.name === b.name && canonicalJson(a.input) === canonicalJson(b.input);

/** The meta of a result a continued re-run takes from the source instead of running the call: where it came from. */
export const replayedFromMeta = (from: EntryRef): { replayedFrom: EntryRef } => ({ replayedFrom: { sessionId: from.sessionId, entryId: from.entryId } });

/** Where a replayed tool result came from (`meta.replayedFrom`); null for a result that was run. */
export function replayedFromOf(entry: Entry): EntryRef | null {
  const parsed = entryRef.safeParse(entry.meta.replayedFrom);
  return parsed.success ? parsed.data : null;
}
