import { VIEW_ASSEMBLED, ATTEMPT_EVENT } from '../tape/entryNames';
import { errorMessage } from '../tape/errorMessage';
import type { SessionReads } from './sessionReads';
import type { JsonObject } from '../tape/entry';
import { diffManifests, manifestOfEntry, type ViewManifest } from '../tape/manifest';
import { inputLeavesCacheOut } from '../tape/usage/usageFigures';
import type { RequestDiff, RequestItem } from '../protocol/inspector';

export interface SkippedRequest {
  entryId: number;
  reason: string;
}

export interface RequestList {
  items: RequestItem[];
  /** `view/assembled` entries whose manifest does not read: listed here instead of failing the view. */
  skipped: SkippedRequest[];
}

const record = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const requestKey = (turnId: string, requestSeq: number): string => `${turnId}\u0000${requestSeq}`;

const eventIds = (store: SessionReads, sessionId: string, name: string): number[] =>
  store
    .foldRows(sessionId, 0)
    .filter((r) => r.kind === 'event' && r.name === name)
    .map((r) => r.entryId);

const modelLabel = (m: ViewManifest['model']): string => `${m.vendor}/${m.id}`;
const policyLabel = (p: ViewManifest['policy']): string => `${p.name} v${p.version}`;

interface AttemptTotals {
  /** The request's first attempt entry, and what it says of the request. */
  firstEntryId: number;
  at: number;
  turnId: string | null;
  requestSeq: number | null;
  model: string | null;
  attempts: number;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  cacheCreationTokens: number | null;
  /** What the attempts say of how their input counts the cache (promptTokensOf); null when they do not say. */
  inputIncludesCached: boolean | null;
}

/** Sums that stay null until an attempt reports the figure: "not recorded" is not zero. */
const add = (sum: number | null, v: number | null): number | null => (v === null ? sum : (sum ?? 0) + v);

/**
 * The `provider/attempt` events of a session, summed per request: this agent's name their request
 * (turnId + requestSeq), so retries add up; an attempt that names none (another agent's, ingested:
 * one per model response) is a request of its own.
 */
function attemptsByRequest(store: SessionReads, sessionId: string): Map<string, AttemptTotals> {
  const totals = new Map<string, AttemptTotals>();
  for (const id of eventIds(store, sessionId, ATTEMPT_EVENT)) {
    const e = store.requireEntry(sessionId, id);
    const data = record(e.payload.data);
    const metaTurn = e.meta.turnId;
    const turnId = typeof data.turnId === 'string' ? data.turnId : typeof metaTurn === 'string' ? metaTurn : null;
    const requestSeq = num(data.requestSeq);
    const key = turnId !== null && requestSeq !== null ? requestKey(turnId, requestSeq) : `#${id}`;
    const t = totals.get(key) ?? {
      firstEntryId: id,
      at: e.createdAt,
      turnId,
      requestSeq,
      model: typeof data.model === 'string' ? data.model : null,
      attempts: 0,
      durationMs: null,
      inputTokens: null,
      outputTokens: null,
      cachedTokens: null,
      cacheCreationTokens: null,
      inputIncludesCached: null,
    };
    const usage = record(data.usage);
    if (typeof usage.inputIncludesCached === 'boolean') t.inputIncludesCached = usage.inputIncludesCached;
    t.attempts++;
    t.durationMs = add(t.durationMs, num(data.durationMs));
    t.inputTokens = add(t.inputTokens, num(usage.inputTokens));
    t.outputTokens = add(t.outputTokens, num(usage.outputTokens));
    t.cachedTokens = add(t.cachedTokens, num(usage.cachedTokens));
    t.cacheCreationTokens = add(t.cacheCreationTokens, num(usage.cacheCreationTokens));
    totals.set(key, t);
  }
  return totals;
}

type Usage = Pick<AttemptTotals, 'inputTokens' | 'cachedTokens' | 'cacheCreationTokens' | 'inputIncludesCached'>;

/** The whole prompt of a request from its usage, the cache in it however the attempt stored it (inputLeavesCacheOut). */
export function promptTokensOf(u: Usage): number | null {
  if (u.inputTokens === null) return null;
  const apart = inputLeavesCacheOut({ inputIncludesCached: u.inputIncludesCached ?? undefined, cacheCreationTokens: u.cacheCreationTokens ?? undefined });
  return apart ? u.inputTokens + (u.cachedTokens ?? 0) + (u.cacheCreationTokens ?? 0) : u.inputTokens;
}

/** The share of the prompt read from the cache (promptTokensOf), null without the figures. */
function cacheHitShareOf(u: Usage): number | null {
  const prompt = promptTokensOf(u);
  if (prompt === null || u.cachedTokens === null || prompt <= 0) return null;
  return Math.min(1, Math.max(0, u.cachedTokens / prompt));
}

const attemptFigures = (t: AttemptTotals | undefined, estimate: number | null) => {
  const usage = { inputTokens: t?.inputTokens ?? null, cachedTokens: t?.cachedTokens ?? null, cacheCreationTokens: t?.cacheCreationTokens ?? null };
  const counted = { ...usage, inputIncludesCached: t?.inputIncludesCached ?? null };
  return {
    attempts: t?.attempts ?? 0,
    durationMs: t?.durationMs ?? null,
    outputTokens: t?.outputTokens ?? null,
    ...usage,
    promptTokens: promptTokensOf(counted) ?? estimate,
    cacheHitShare: cacheHitShareOf(counted),
  };
};

/**
 * One item per model request of the session, in tape order: each request a manifest records, with
 * what its attempts recorded, and each request only attempts record (an ingested session's model
 * calls) from those attempts.
 */
export function requestItems(store: SessionReads, sessionId: string): RequestList {
  const attempts = attemptsByRequest(store, sessionId);
  const list: RequestList = { items: [], skipped: [] };
  const joined = new Set<string>();
  for (const id of eventIds(store, sessionId, VIEW_ASSEMBLED)) {
    let m: ViewManifest;
    try {
      m = manifestOfEntry(store.requireEntry(sessionId, id));
    } catch (e) {
      list.skipped.push({ entryId: id, reason: errorMessage(e) });
      continue;
    }
    const key = requestKey(m.turnId, m.requestSeq);
    joined.add(key);
    list.items.push({
      source: 'manifest',
      entryId: id,
      turnId: m.turnId,
      requestSeq: m.requestSeq,
      model: modelLabel(m.model),
      assembledAt: m.assembledAt,
      estimatedPrompt: m.tokenBudget.estimatedPrompt,
      included: m.included.length,
      excluded: m.excluded.length,
      anchorEntryId: m.anchorEntryId,
      ...attemptFigures(attempts.get(key), m.tokenBudget.estimatedPrompt),
    });
  }
  for (const [key, t] of attempts) {
    if (joined.has(key)) continue;
    list.items.push({
      source: 'attempt',
      entryId: t.firstEntryId,
      turnId: t.turnId,
      requestSeq: t.requestSeq,
      model: t.model ?? 'unknown',
      assembledAt: t.at,
      estimatedPrompt: null,
      included: null,
      excluded: null,
      anchorEntryId: null,
      ...attemptFigures(t, null),
    });
  }
  list.items.sort((a, b) => a.entryId - b.entryId);
  return list;
}

function manifestAt(store: SessionReads, sessionId: string, entryId: number): ViewManifest {
  const entry = store.getEntry(sessionId, entryId);
  if (entry === undefined) throw new Error(`session ${sessionId} has no entry ${entryId}`);
  return manifestOfEntry(entry);
}

/** What changed from request `a` to request `b` (both `view/assembled` entry ids); throws a ManifestError naming a bad one. */
export function requestDiff(store: SessionReads, sessionId: string, a: number, b: number): RequestDiff {
  const ma = manifestAt(store, sessionId, a);
  const mb = manifestAt(store, sessionId, b);
  const d = diffManifests(ma, mb);
  const item = (i: ViewManifest['included'][number]) => ({ entryId: i.entryId, role: i.role, reason: i.reason, tokens: i.tokens });
  return {
    a,
    b,
    added: d.added.map(item),
    removed: d.removed.map((i) => ({ ...item(i), excludedAs: i.excludedAs })),
    reasonChanges: d.reasonChanges.map(({ list, entryId, from, to }) => ({ list, entryId, from, to })),
    anchor: d.anchor,
    policy: d.policy && { from: policyLabel(d.policy.from), to: policyLabel(d.policy.to) },
    model: d.model && { from: modelLabel(d.model.from), to: modelLabel(d.model.to) },
    promptChanged: d.promptChanged,
    toolsChanged: d.toolsChanged,
    tokens: d.tokens,
    unchangedPrefix: d.unchangedPrefix,
  };
}
