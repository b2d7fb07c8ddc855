import { VIEW_ASSEMBLED } from './entryNames';
import * as z from 'zod';
import { canonicalJson, sha256Hex } from './canonicalJson';
import { promptMessageOf, type ContextMessage, type ContextRole, type PromptMessage } from './context';
import type { Entry, NewEntry } from './entry';
import { jsonEqual } from './jsonEqual';
import { namedProvenanceKey } from './provenanceKey';
import { requestParamsSchema } from './requestParams';

/**
 * The ViewManifest (SPEC 2.6): the record of what one model request was built from. It holds entry
 * ids and SHA-256 hashes of canonical JSON, never prompt text or secrets, so a tape can be shared
 * and a request can still be rebuilt from the tape and checked against it (verification replay).
 */

/** The version written; version 1 (no `params`) is still read, verified and re-run. */
export const MANIFEST_SCHEMA_VERSION = 2;
/** The first version with `params`; older manifests were sent with `tokenBudget.maxOutput` and the server's defaults. */
export const PARAMS_SINCE_VERSION = 2;

/** Why a tape entry was left out of a context. The set is open: a policy may add its own reasons. */
export const EXCLUSION_REASONS = ['before_anchor', 'out_of_budget', 'retracted', 'superseded', 'empty'] as const;

const CONTEXT_ROLES = ['system', 'user', 'assistant', 'tool'] as const satisfies readonly ContextRole[];

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 as 64 lowercase hex digits');
const text = z.string().min(1);
const entryId = z.number().int().positive();
const count = z.number().int().nonnegative();

const includedItem = z
  .strictObject({
    entryId: entryId.nullable(),
    role: z.enum(CONTEXT_ROLES),
    source: z.enum(['tape', 'synthetic']),
    reason: text,
    contentHash: sha256,
    tokens: count,
  })
  // The diff identifies tape items by entry id and synthetic ones by content: each needs its key.
  .refine((i) => (i.source === 'tape') === (i.entryId !== null), {
    message: 'a tape item has an entryId and a synthetic item has none (null)',
    path: ['entryId'],
  });

// Strict objects: a field the schema does not know is refused, so a prompt or a key cannot ride
// along in a manifest unnoticed; a new field means a new schemaVersion.
export const viewManifestSchema = z
  .strictObject({
    schemaVersion: z.union([z.literal(1), z.literal(MANIFEST_SCHEMA_VERSION)]),
    viewId: text,
    sessionId: text,
    turnId: text,
    requestSeq: count,
    policy: z.strictObject({ name: text, version: z.number().int().positive() }),
    builderVersion: text,
    latestEntryId: entryId,
    anchorEntryId: entryId.nullable(),
    included: z.array(includedItem),
    excluded: z.array(z.strictObject({ entryId, reason: text })),
    tokenBudget: z.strictObject({ contextWindow: z.number().int().positive(), maxOutput: count, reserve: count, estimatedPrompt: count }),
    model: z.strictObject({ vendor: text, id: text }),
    hashes: z.strictObject({ promptHash: sha256, toolsHash: sha256, manifestHash: sha256 }),
    assembledAt: count,
    /** The request parameters as sent (version 2 on); absent from version 1. */
    params: requestParamsSchema.optional(),
  })
  // Each version has exactly its own fields: a version 1 manifest that grew params is not one.
  .refine((m) => m.schemaVersion >= PARAMS_SINCE_VERSION === (m.params !== undefined), {
    message: `a manifest of schema version ${PARAMS_SINCE_VERSION} or later has params and a version 1 manifest has none`,
    path: ['params'],
  });

export type ViewManifest = z.infer<typeof viewManifestSchema>;
export type IncludedItem = ViewManifest['included'][number];
export type ExcludedItem = ViewManifest['excluded'][number];
/** A manifest before `sealManifest` computes its own hash. */
export type UnsealedManifest = Omit<ViewManifest, 'hashes'> & { hashes: Omit<ViewManifest['hashes'], 'manifestHash'> };

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** SHA-256 of the canonical JSON of what a provider receives of the message, `{ role, content, toolCallId?, toolName? }`. */
export const contentHashOf = (m: PromptMessage): string => sha256Hex(canonicalJson(promptMessageOf(m)));

/**
 * SHA-256 of the canonical JSON of the context messages' content hashes, in the order they are
 * sent: a prompt of n messages is hashed as `["<contentHash 1>",...,"<contentHash n>"]`. Each
 * message's hash already covers `{ role, content, toolCallId?, toolName? }`, so this covers the
 * whole prompt while hashing 64 bytes a message instead of its text a second time. Entry ids and
 * sources are left out: they are not sent, so the same prompt rebuilt from another tape has the
 * same hash.
 */
export const promptHashOf = (messages: readonly PromptMessage[]): string => hashPrompt(messages).promptHash;

/** `contentHashOf` of each message and `promptHashOf` of them all, serialising each message once. */
export function hashPrompt(messages: readonly PromptMessage[]): { contentHashes: string[]; promptHash: string } {
  const contentHashes = messages.map(cachedContentHash);
  return { contentHashes, promptHash: sha256Hex(canonicalJson(contentHashes)) };
}

/**
 * Content hashes of recent prompt messages. Each request of a session sends the messages of the
 * one before it again, so nearly every message of a prompt was hashed for an earlier request; a
 * hash is found by its message's content (V8 hashes a string far faster than it serialises and
 * SHA-256s it) and then its other fields, compared exactly. Bounded: the oldest half goes when full.
 */
const contentHashes = new Map<string, { role: string; toolCallId: string | undefined; toolName: string | undefined; hash: string }[]>();
const CONTENT_HASHES_MAX = 8192;

function cachedContentHash(m: PromptMessage): string {
  const known = contentHashes.get(m.content);
  const hit = known?.find((k) => k.role === m.role && k.toolCallId === m.toolCallId && k.toolName === m.toolName);
  if (hit) return hit.hash;
  const hash = contentHashOf(m);
  if (known) {
    // Short contents ("ok", "") recur under many call ids: keep the latest few of each.
    if (known.length >= 16) known.shift();
    known.push({ role: m.role, toolCallId: m.toolCallId, toolName: m.toolName, hash });
  } else {
    if (contentHashes.size >= CONTENT_HASHES_MAX) {
      let drop = CONTENT_HASHES_MAX / 2;
      for (const key of contentHashes.keys()) {
        contentHashes.delete(key);
        if (--drop === 0) break;
      }
    }
    contentHashes.set(m.content, [{ role: m.role, toolCallId: m.toolCallId, toolName: m.toolName, hash }]);
  }
  return hash;
}

/**
 * SHA-256 of the canonical JSON of the tool definitions array, in the order they are sent. A tool
 * set is hashed for every request that offers it (tens of KB of JSON Schema each time), so the hash
 * is kept per array: a tool definitions array is built whole and never changed afterwards (the
 * toolboxes build theirs once; a tape's comes from its system/tools entry).
 */
export function toolsHashOf(tools: readonly unknown[]): string {
  let hash = toolsHashes.get(tools);
  if (hash === undefined) toolsHashes.set(tools, (hash = sha256Hex(canonicalJson(tools))));
  return hash;
}
const toolsHashes = new WeakMap<readonly unknown[], string>();

/** The manifest's row for a context message; `contentHash` when the caller has it from `hashPrompt`. */
export function includedOf(m: ContextMessage, reason: string, tokens: number, contentHash = contentHashOf(m)): IncludedItem {
  return { entryId: m.entryId, role: m.role, source: m.source, reason, contentHash, tokens };
}

/**
 * SHA-256 of the canonical manifest without `assembledAt` (a retried request assembles the same
 * manifest later) and without `hashes.manifestHash` (the hash cannot cover itself).
 */
export function hashManifest(m: ViewManifest | UnsealedManifest): string {
  return sha256Hex(canonicalJson(coveredOf(m)));
}

/** The part of a manifest its manifestHash covers. */
function coveredOf(m: ViewManifest | UnsealedManifest): Record<string, unknown> {
  const { assembledAt: _at, hashes, ...rest } = m;
  const { manifestHash: _own, ...covered } = hashes as ViewManifest['hashes'];
  return { ...rest, hashes: covered };
}

/**
 * Whether `recorded` (parsed against the schema) still holds what its manifestHash was computed
 * over. `rebuilt`, a manifest sealed here with the same hash and equal in every covered field,
 * proves it without serialising and hashing the recorded one again: a rebuild that reproduces the
 * request, the usual case, then costs one hash instead of two.
 */
export function keepsItsHash(recorded: ViewManifest, rebuilt?: ViewManifest): boolean {
  if (
    rebuilt !== undefined &&
    sealed.has(rebuilt) &&
    rebuilt.hashes.manifestHash === recorded.hashes.manifestHash &&
    jsonEqual(coveredOf(recorded), coveredOf(rebuilt))
  )
    return true;
  return hashManifest(recorded) === recorded.hashes.manifestHash;
}

const UNSEALED = '0'.repeat(64);

/** The manifest with its manifestHash; throws a ManifestError when it does not fit the schema. */
export function sealManifest(unsealed: UnsealedManifest): ViewManifest {
  // Checked before hashing, so a bad value is reported against the schema, field by field.
  const r = viewManifestSchema.safeParse({ ...unsealed, hashes: { ...unsealed.hashes, manifestHash: UNSEALED } });
  if (!r.success) throw new ManifestError(`invalid manifest: ${z.prettifyError(r.error)}`);
  r.data.hashes.manifestHash = hashManifest(r.data);
  sealed.add(r.data);
  return r.data;
}

/**
 * Manifests sealed here, checked and hashed: recording one needs no second check (a request's
 * manifest is recorded right after it is sealed). A sealed manifest is not to be changed; one
 * changed anyway no longer verifies, which verification replay reports.
 */
const sealed = new WeakSet<ViewManifest>();

export type ManifestCheck = { ok: true } | { ok: false; reason: string };

/** Whether `value` is a manifest whose manifestHash matches its content: an edited manifest is flagged. */
export function verifyManifest(value: unknown): ManifestCheck {
  const r = viewManifestSchema.safeParse(value);
  if (!r.success) return { ok: false, reason: `not a valid manifest: ${z.prettifyError(r.error)}` };
  const computed = hashManifest(r.data);
  if (computed !== r.data.hashes.manifestHash) {
    return { ok: false, reason: `manifestHash mismatch: recorded ${r.data.hashes.manifestHash}, computed ${computed}` };
  }
  return { ok: true };
}

/**
 * The provenance key of a request's manifest: a retried request appends the same key, so the store
 * returns the manifest already written instead of a second one (SPEC 3.11). A request whose payload
 * changed is a new request and takes the next requestSeq. The session id is part of the key because
 * a merge copies a fork's entries into its parent, where the fork's keys must not meet the parent's.
 */
export const viewProvenanceKey = (sessionId: string, turnId: string, requestSeq: number): string => namedProvenanceKey('view', sessionId, turnId, requestSeq);

/**
 * The `view/assembled` event of a request. The manifest carries its own turnId, so it is not asked
 * for again. Refuses a manifest that is unsealed or does not match its hash: the tape records only
 * manifests that verify.
 */
export function viewAssembledEntry(manifest: ViewManifest): NewEntry {
  const check = sealed.has(manifest) ? ({ ok: true } as const) : verifyManifest(manifest);
  if (!check.ok) throw new ManifestError(`refusing to record manifest ${manifest.viewId}: ${check.reason}`);
  return {
    kind: 'event',
    name: VIEW_ASSEMBLED,
    provenanceKey: viewProvenanceKey(manifest.sessionId, manifest.turnId, manifest.requestSeq),
    payload: { name: VIEW_ASSEMBLED, data: manifest },
  };
}

/**
 * The manifest a `view/assembled` entry holds, checked against the schema only: a manifest that no
 * longer matches its hash is still read, so an inspector can show it and `verifyManifest` flag it.
 */
export function manifestOfEntry(entry: Entry | NewEntry): ViewManifest {
  const where = 'entryId' in entry ? `entry ${entry.entryId} (${entry.kind} ${entry.name})` : `entry (${entry.kind} ${entry.name})`;
  if (entry.kind !== 'event' || entry.name !== VIEW_ASSEMBLED) throw new ManifestError(`${where} is not a ${VIEW_ASSEMBLED} event`);
  const r = viewManifestSchema.safeParse(entry.payload.data);
  if (!r.success) throw new ManifestError(`${where} holds no valid manifest in payload.data: ${z.prettifyError(r.error)}`);
  return r.data;
}

export interface Change<T> {
  from: T;
  to: T;
}
export interface Delta {
  from: number;
  to: number;
  delta: number;
}

/** What changed between the contexts of two requests (SPEC 2.6), from `a` to `b`. */
export interface ManifestDiff {
  /** Items in b's context and not in a's, in b's order. */
  added: IncludedItem[];
  /** Items in a's context and not in b's, in a's order, with the reason b gives for excluding them (null if it gives none). */
  removed: (IncludedItem & { excludedAs: string | null })[];
  /** Items in both contexts, or excluded by both, whose reason changed; `contentHash` is null for excluded entries. */
  reasonChanges: { list: 'included' | 'excluded'; entryId: number | null; contentHash: string | null; from: string; to: string }[];
  /** Tape entries in both contexts that were rendered differently (a policy that cuts or reformats an entry). */
  contentChanges: { entryId: number; from: string; to: string }[];
  anchor: Change<number | null> | null;
  policy: Change<ViewManifest['policy']> | null;
  model: Change<ViewManifest['model']> | null;
  builderVersion: Change<string> | null;
  promptChanged: boolean;
  toolsChanged: boolean;
  tokens: { estimatedPrompt: Delta; included: Delta };
  /**
   * The leading items identical in both (same role and contentHash) and their tokens in b: what a
   * provider's prompt cache can reuse, provided the model and the tools (sent first) are unchanged.
   */
  unchangedPrefix: { items: number; tokens: number };
}

// Tape items are the same item when they show the same entry (even rendered differently); a
// synthetic item has no entry, so only identical content makes it the same.
const itemKey = (i: IncludedItem): string => (i.entryId !== null ? `tape:${i.entryId}` : `synthetic:${i.contentHash}`);

const change = <T>(from: T, to: T, same: boolean): Change<T> | null => (same ? null : { from, to });
const delta = (from: number, to: number): Delta => ({ from, to, delta: to - from });
const tokenSum = (items: readonly IncludedItem[]): number => items.reduce((s, i) => s + i.tokens, 0);

export function diffManifests(a: ViewManifest, b: ViewManifest): ManifestDiff {
  // Queues, because a synthetic item may appear twice with the same content: matched in order.
  const unmatched = new Map<string, { item: IncludedItem; index: number }[]>();
  a.included.forEach((item, index) => {
    const key = itemKey(item);
    const queue = unmatched.get(key);
    if (queue === undefined) unmatched.set(key, [{ item, index }]);
    else queue.push({ item, index });
  });

  const diff: ManifestDiff = {
    added: [],
    removed: [],
    reasonChanges: [],
    contentChanges: [],
    anchor: change(a.anchorEntryId, b.anchorEntryId, a.anchorEntryId === b.anchorEntryId),
    policy: change(a.policy, b.policy, a.policy.name === b.policy.name && a.policy.version === b.policy.version),
    model: change(a.model, b.model, a.model.vendor === b.model.vendor && a.model.id === b.model.id),
    builderVersion: change(a.builderVersion, b.builderVersion, a.builderVersion === b.builderVersion),
    promptChanged: a.hashes.promptHash !== b.hashes.promptHash,
    toolsChanged: a.hashes.toolsHash !== b.hashes.toolsHash,
    tokens: {
      estimatedPrompt: delta(a.tokenBudget.estimatedPrompt, b.tokenBudget.estimatedPrompt),
      included: delta(tokenSum(a.included), tokenSum(b.included)),
    },
    unchangedPrefix: { items: 0, tokens: 0 },
  };

  for (const item of b.included) {
    const match = unmatched.get(itemKey(item))?.shift();
    if (match === undefined) {
      diff.added.push(item);
      continue;
    }
    const old = match.item;
    if (old.reason !== item.reason) {
      diff.reasonChanges.push({ list: 'included', entryId: item.entryId, contentHash: item.contentHash, from: old.reason, to: item.reason });
    }
    if (item.entryId !== null && old.contentHash !== item.contentHash) {
      diff.contentChanges.push({ entryId: item.entryId, from: old.contentHash, to: item.contentHash });
    }
  }

  const excludedByB = new Map(b.excluded.map((e) => [e.entryId, e.reason]));
  const left = [...unmatched.values()].flat().sort((x, y) => x.index - y.index);
  for (const { item } of left) {
    diff.removed.push({ ...item, excludedAs: item.entryId === null ? null : (excludedByB.get(item.entryId) ?? null) });
  }

  const excludedByA = new Map(a.excluded.map((e) => [e.entryId, e.reason]));
  for (const e of b.excluded) {
    const was = excludedByA.get(e.entryId);
    if (was !== undefined && was !== e.reason) {
      diff.reasonChanges.push({ list: 'excluded', entryId: e.entryId, contentHash: null, from: was, to: e.reason });
    }
  }

  const n = Math.min(a.included.length, b.included.length);
  let i = 0;
  while (i < n && a.included[i].contentHash === b.included[i].contentHash && a.included[i].role === b.included[i].role) {
    diff.unchangedPrefix.tokens += b.included[i].tokens;
    i++;
  }
  diff.unchangedPrefix.items = i;
  return diff;
}
