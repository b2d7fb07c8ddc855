import { VIEW_ASSEMBLED } from '../tape/entryNames';
import * as z from 'zod';
import type { ReadableTape } from '../store/lineage';
import type { TapeStore } from '../store/tapeStore';
import { canonicalJson } from '../tape/canonicalJson';
import { errorMessage } from '../tape/errorMessage';
import { mergedFromOf } from '../tape/fork';
import { hashManifest, manifestOfEntry, type ExcludedItem, type IncludedItem, type ViewManifest } from '../tape/manifest';
import { samplingOf } from '../tape/requestParams';
import { rerunOfSession } from '../tape/evaluation/rerunEntries';
import { PrefixReplay } from './prefixReplay';
import { RebuildError } from './rebuildError';
import { REBUILDERS, rebuilderFor, recordedFacts, recordedTokens, type Rebuilder } from './rebuilder';
import { variationSchema, type Variation } from './variation';
import { variedPrefix } from './variedPrefix';

/**
 * Verification replay (SPEC 2.7): every recorded request is rebuilt from the tape prefix it was
 * assembled from, with the policy and builder it names, and compared with its manifest. A match
 * means the tape alone re-derives what the model was sent; so a tape is a regression test for the
 * context builder, and a changed builder or an altered entry shows as the first item that differs.
 */

export const ITEM_FIELDS = ['entryId', 'role', 'source', 'reason', 'contentHash', 'tokens'] as const;
export type ItemField = (typeof ITEM_FIELDS)[number];

/** The first way the rebuilt request differs from the recorded one, in the order they are looked for. */
export type Difference =
  /** The item at `position` (from 1, in the order sent) differs in `fields`. */
  | { what: 'item'; position: number; recorded: IncludedItem; rebuilt: IncludedItem; fields: ItemField[] }
  /** One side has more items; `item` is the first one the other lacks, at `position`. */
  | { what: 'count'; recorded: number; rebuilt: number; position: number; item: IncludedItem; onlyIn: 'recorded' | 'rebuilt' }
  | { what: 'excluded'; recorded: ExcludedItem[]; rebuilt: ExcludedItem[] }
  /** Other manifest fields (`anchorEntryId`, `tokenBudget`, ...) that differ while the items agree. */
  | { what: 'fields'; fields: string[] }
  /** The items agree but the recorded promptHash does not hash them: the manifest was edited. */
  | { what: 'promptHash'; recorded: string; rebuilt: string };

export type RequestStatus =
  | { status: 'match' }
  | { status: 'mismatch'; difference: Difference }
  | { status: 'cannot_rebuild'; unknown: 'policy' | 'builder' | 'manifest' | 'variation'; reason: string }
  /** Carried into this session by a merge: it is verified in the fork it was recorded in. */
  | { status: 'merged'; from: { sessionId: string; entryId: number } };

export type RequestReport = RequestStatus & {
  /** The `view/assembled` entry. */
  entryId: number;
  turnId: string | null;
  requestSeq: number | null;
  latestEntryId: number | null;
};

export type IntegrityCheck = 'dense_ids' | 'provenance_keys' | 'manifest_hash' | 'manifest_invalid' | 'manifest_duplicate' | 'manifest_prefix';

export interface IntegrityProblem {
  check: IntegrityCheck;
  entryId: number | null;
  message: string;
}

export interface SessionReport {
  sessionId: string;
  ok: boolean;
  requests: RequestReport[];
  integrity: IntegrityProblem[];
  /** Set when the session recorded no request: nothing was rebuilt (an ingested session, say). */
  note: string | null;
}

export interface VerifySummary {
  sessions: number;
  requests: number;
  match: number;
  mismatch: number;
  cannotRebuild: number;
  merged: number;
  integrityProblems: number;
}

export interface VerifyReport {
  /** No mismatch, nothing that could not be rebuilt, no integrity problem. */
  ok: boolean;
  sessions: SessionReport[];
  summary: VerifySummary;
  note: string | null;
}

export interface VerifyOptions {
  /** One session; all of the tape's when omitted. */
  sessionId?: string;
  /** The builders that may rebuild a request; the current one by default. */
  rebuilders?: readonly Rebuilder[];
}

const NOTHING_RECORDED = 'no recorded requests (no view/assembled manifests): nothing to verify';

/**
 * `tape` as its host has it open: the store for what it stores (its sessions, their stored rows),
 * the host's lineage reader for the sessions' views, so verification reads through the same reader
 * as the session it checks.
 */
export function verifyTape(tape: ReadableTape, options: VerifyOptions = {}): VerifyReport {
  const { store } = tape;
  const ids = options.sessionId !== undefined ? [options.sessionId] : store.sessions().map((s) => s.sessionId);
  for (const id of ids) if (store.headEntryId(id) === 0) throw new Error(`the tape has no session ${JSON.stringify(id)}`);
  const rebuilders = options.rebuilders ?? REBUILDERS;
  const sessions = ids.map((id) => verifySession(tape, id, rebuilders));
  const all = sessions.flatMap((s) => s.requests);
  const count = (status: RequestStatus['status']): number => all.filter((r) => r.status === status).length;
  const summary: VerifySummary = {
    sessions: sessions.length,
    requests: all.length,
    match: count('match'),
    mismatch: count('mismatch'),
    cannotRebuild: count('cannot_rebuild'),
    merged: count('merged'),
    integrityProblems: sessions.reduce((n, s) => n + s.integrity.length, 0),
  };
  return { ok: sessions.every((s) => s.ok), sessions, summary, note: all.length === 0 ? NOTHING_RECORDED : null };
}

export function verifySession({ store, reader }: ReadableTape, sessionId: string, rebuilders: readonly Rebuilder[] = REBUILDERS): SessionReport {
  const integrity = storedIntegrity(store, sessionId);
  // A fork's view shows its parent's manifests up to the fork point; they are the parent's to verify.
  const own = reader.entries(sessionId, { kind: 'event', name: VIEW_ASSEMBLED }).filter((e) => reader.origin(sessionId, e.entryId).sessionId === sessionId);
  const replay = new PrefixReplay(reader, sessionId);
  const rerun = rerunOf(store, sessionId);
  const seen = new Map<string, number>();
  const requests = own.map((entry): RequestReport => {
    let manifest: ViewManifest;
    try {
      manifest = manifestOfEntry(entry);
    } catch (e) {
      const reason = errorMessage(e);
      integrity.push({ check: 'manifest_invalid', entryId: entry.entryId, message: reason });
      return { entryId: entry.entryId, turnId: null, requestSeq: null, latestEntryId: null, status: 'cannot_rebuild', unknown: 'manifest', reason };
    }
    const where = { entryId: entry.entryId, turnId: manifest.turnId, requestSeq: manifest.requestSeq, latestEntryId: manifest.latestEntryId };
    const computed = hashManifest(manifest);
    if (computed !== manifest.hashes.manifestHash) {
      integrity.push({
        check: 'manifest_hash',
        entryId: entry.entryId,
        message: `manifest ${manifest.viewId} was altered: its manifestHash is ${manifest.hashes.manifestHash}, its content hashes to ${computed}`,
      });
    }
    // Merged copies keep the fork's session id, so theirs never meet this session's own.
    const key = `${manifest.sessionId}\u0000${manifest.turnId}\u0000${manifest.requestSeq}`;
    const first = seen.get(key);
    if (first !== undefined) {
      integrity.push({
        check: 'manifest_duplicate',
        entryId: entry.entryId,
        message: `a second manifest for turn ${manifest.turnId} request ${manifest.requestSeq} (the first is entry #${first})`,
      });
    } else seen.set(key, entry.entryId);

    const merged = mergedFromOf(entry);
    if (merged !== null) return { ...where, status: 'merged', from: merged };
    if (manifest.latestEntryId >= entry.entryId) {
      integrity.push({
        check: 'manifest_prefix',
        entryId: entry.entryId,
        message: `manifest ${manifest.viewId} says it was built from entries up to #${manifest.latestEntryId}, at or after its own entry`,
      });
    }
    // The requests a re-run made in its turn were built under its variation; later turns of the fork were not.
    const variation = rerun !== null && manifest.turnId === rerun.turnId ? rerun.variation : {};
    return { ...where, ...rebuildAndCompare(replay, manifest, rebuilders, variation) };
  });
  return {
    sessionId,
    ok: integrity.length === 0 && requests.every((r) => r.status === 'match' || r.status === 'merged'),
    requests,
    integrity,
    note: requests.length === 0 ? NOTHING_RECORDED : null,
  };
}

/** What the store itself must guarantee of a session (SPEC 2.1, 2.2): dense ids from 1, unique provenance keys. */
function storedIntegrity(store: TapeStore, sessionId: string): IntegrityProblem[] {
  const problems: IntegrityProblem[] = [];
  const keys = new Map<string, number>();
  let expected = 1;
  for (const e of store.rawEntries(sessionId)) {
    if (e.entryId !== expected)
      problems.push({ check: 'dense_ids', entryId: e.entryId, message: `entry #${e.entryId} follows #${expected - 1}: entry ids are not dense from 1` });
    expected = e.entryId + 1;
    if (e.provenanceKey === null) continue;
    const first = keys.get(e.provenanceKey);
    if (first !== undefined)
      problems.push({
        check: 'provenance_keys',
        entryId: e.entryId,
        message: `provenance key ${JSON.stringify(e.provenanceKey)} of entry #${e.entryId} is already entry #${first}'s`,
      });
    else keys.set(e.provenanceKey, e.entryId);
  }
  return problems;
}

/** A re-run fork's turn and variation (its `rerun/request` event), or null for any other session. */
function rerunOf(store: TapeStore, sessionId: string): { turnId: string; variation: Variation | string } | null {
  const data = rerunOfSession((id) => store.getEntry(sessionId, id));
  if (data === null) return null;
  const variation = variationSchema.safeParse(data.variation);
  return {
    turnId: data.turnId,
    variation: variation.success ? variation.data : `its rerun/request names an invalid variation: ${z.prettifyError(variation.error)}`,
  };
}

function rebuildAndCompare(replay: PrefixReplay, recorded: ViewManifest, rebuilders: readonly Rebuilder[], variation: Variation | string): RequestStatus {
  const choice = rebuilderFor(rebuilders, recorded.policy, recorded.builderVersion);
  if (!('rebuilder' in choice)) return { status: 'cannot_rebuild', ...choice };
  if (typeof variation === 'string') return { status: 'cannot_rebuild', unknown: 'variation', reason: variation };
  let prefix: ReturnType<typeof variedPrefix>;
  try {
    prefix = variedPrefix(replay, recorded.latestEntryId, variation);
  } catch (e) {
    if (!(e instanceof RebuildError)) throw e;
    return { status: 'cannot_rebuild', unknown: 'variation', reason: e.message };
  }
  const { params } = recorded;
  const rebuilt = choice.rebuilder.rebuild(prefix.folds, {
    ...recordedFacts(recorded, replay.sessionId, prefix.getEntry),
    // The tool definitions are checked by their hash, taken as recorded (older tapes hold none); their tokens as recordedTokens says.
    tools: [],
    sampling: params === undefined ? {} : samplingOf(params),
    countTokens: recordedTokens(recorded),
  }).manifest;
  const difference = firstDifference(recorded, { ...rebuilt, hashes: { ...rebuilt.hashes, toolsHash: recorded.hashes.toolsHash } });
  return difference === null ? { status: 'match' } : { status: 'mismatch', difference };
}

/** The first way `rebuilt` differs from `recorded` (see `Difference`), or null when it is the same request. */
export function firstDifference(recorded: ViewManifest, rebuilt: ViewManifest): Difference | null {
  const a = recorded.included;
  const b = rebuilt.included;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const fields = ITEM_FIELDS.filter((f) => a[i][f] !== b[i][f]);
    if (fields.length > 0) return { what: 'item', position: i + 1, recorded: a[i], rebuilt: b[i], fields };
  }
  if (a.length !== b.length) {
    const longer = a.length > b.length ? a : b;
    const n = Math.min(a.length, b.length);
    return { what: 'count', recorded: a.length, rebuilt: b.length, position: n + 1, item: longer[n], onlyIn: longer === a ? 'recorded' : 'rebuilt' };
  }
  if (canonicalJson(recorded.excluded) !== canonicalJson(rebuilt.excluded)) return { what: 'excluded', recorded: recorded.excluded, rebuilt: rebuilt.excluded };
  const fields = OTHER_FIELDS.filter((f) => canonicalJson(recorded[f]) !== canonicalJson(rebuilt[f]));
  if (fields.length > 0) return { what: 'fields', fields };
  if (recorded.hashes.promptHash !== rebuilt.hashes.promptHash)
    return { what: 'promptHash', recorded: recorded.hashes.promptHash, rebuilt: rebuilt.hashes.promptHash };
  return null;
}

// Everything the builder derives besides the items; viewId, turnId, requestSeq, model, params and
// assembledAt are handed to it from the manifest, and the hashes are compared on their own. The
// schema version is the format, not the request: a version 1 manifest is rebuilt as the current one.
const OTHER_FIELDS = ['sessionId', 'policy', 'builderVersion', 'latestEntryId', 'anchorEntryId', 'tokenBudget'] as const;

const itemLabel = (i: IncludedItem): string => (i.entryId === null ? `${i.source} ${i.role}` : `#${i.entryId} ${i.role}`);

/** One line for people: what verification found for a request. */
export function describeRequest(r: RequestReport): string {
  const which = r.turnId === null ? `entry #${r.entryId}` : `${r.turnId}/${r.requestSeq} #${r.entryId}`;
  switch (r.status) {
    case 'match':
      return `${which} match`;
    case 'merged':
      return `${which} merged from ${r.from.sessionId} #${r.from.entryId} (verified there)`;
    case 'cannot_rebuild':
      return `${which} cannot rebuild: ${r.reason}`;
    case 'mismatch':
      return `${which} mismatch: ${describeDifference(r.difference)}`;
  }
}

export function describeDifference(d: Difference): string {
  switch (d.what) {
    case 'item': {
      const moved = d.fields.includes('entryId') || d.fields.includes('role') ? `, rebuilt ${itemLabel(d.rebuilt)}` : '';
      return `item ${d.position} (${itemLabel(d.recorded)}${moved}) ${d.fields.join(', ')} ${d.fields.length === 1 ? 'differs' : 'differ'}`;
    }
    case 'count':
      return `${d.recorded} items recorded, ${d.rebuilt} rebuilt; item ${d.position} (${itemLabel(d.item)}) is only in the ${d.onlyIn} request`;
    case 'excluded':
      return `the excluded entries differ: recorded ${excludedText(d.recorded)}, rebuilt ${excludedText(d.rebuilt)}`;
    case 'fields':
      return `${d.fields.join(', ')} ${d.fields.length === 1 ? 'differs' : 'differ'}`;
    case 'promptHash':
      return `the items agree but the recorded promptHash ${d.recorded.slice(0, 12)}… is not theirs (${d.rebuilt.slice(0, 12)}…)`;
  }
}

const excludedText = (items: readonly ExcludedItem[]): string => (items.length === 0 ? 'none' : items.map((e) => `#${e.entryId} ${e.reason}`).join(', '));
