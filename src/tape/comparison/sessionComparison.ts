import { PIN_EVENT, SUMMARY_EDIT_EVENT, UNDO_EVENT, VIEW_ASSEMBLED, ATTEMPT_EVENT, TURN_START } from '../entryNames';
import { isSessionStart, pinData, summaryEditData, textOf, undoData, type Entry } from '../entry';
import type { EffectiveView } from '../fold';
import { jsonEqual } from '../jsonEqual';
import { oneLine } from '../oneLine';
import { turnChanges, type FileChange } from '../workspaceCheckpoint';
import { wholeInputOf } from '../usage/usageFigures';

/** Where a view position is stored: the lineage reader's `origin` (src/store/lineage.ts). */
export type OriginOf = (entryId: number) => { sessionId: string; entryId: number };

/** One session to compare: its view's entries in position order, as a session handle's `entries()` reads them. */
export interface ComparedSession {
  sessionId: string;
  entries: readonly Entry[];
  /**
   * When given, only the messages, tool calls and tool results effective in this view are listed
   * and counted (retracted and superseded revisions are left out); requests and tokens are every
   * one recorded, since they were made and billed whatever the view later became.
   */
  view?: EffectiveView;
  /** When given (both sides), two positions are the same entry when they are stored at the same place. */
  origin?: OriginOf;
}

export type ComparedItem =
  | { kind: 'message'; entryId: number; role: string; status: string; firstLine: string }
  | { kind: 'tool_call'; entryId: number; name: string; input: string }
  | { kind: 'tool_result'; entryId: number; name: string | null; status: string }
  /** A `compaction/pin`: the entries it names and its facts (`kind: value`, each on one line, cut at 120 characters). */
  | { kind: 'compaction_pin'; entryId: number; anchorEntryId: number; entryIds: number[]; facts: string[] }
  | { kind: 'compaction_summary_edit'; entryId: number; anchorEntryId: number; firstLine: string }
  | { kind: 'compaction_undo'; entryId: number; anchorEntryId: number; reason: string | null };

export interface TokenTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

/**
 * Where a side's segment starts: at a `turn/start`, or, on a side whose remainder has none (a
 * session ingested from another agent), at a user message; null for the entries before the first.
 */
export type SegmentStart = 'turn_start' | 'user_message' | null;

/** One side of one aligned turn. */
export interface TurnSide {
  /** The `turn/start`'s turn id; null for a segment that does not start at one. */
  turnId: string | null;
  startsAt: SegmentStart;
  fromEntryId: number;
  toEntryId: number;
  items: ComparedItem[];
  /** `view/assembled` events: model requests made. */
  requests: number;
  tokens: TokenTotals;
  /** The tool calls listed in `items`'s sense: with a view, the effective ones. */
  toolCalls: number;
  /** The files the turn's `turn_end` checkpoint lists; null when the turn has no pair of checkpoints. */
  files: FileChange[] | null;
  filesOmitted: number;
}

export interface SideTotals {
  entries: number;
  requests: number;
  tokens: TokenTotals;
  toolCalls: number;
  /** Every path a turn's checkpoints list as changed, sorted, once each. */
  filesChanged: string[];
}

export interface SessionComparison {
  a: { sessionId: string; headEntryId: number };
  b: { sessionId: string; headEntryId: number };
  sharedPrefix: number;
  /** Totals of the shared positions 1..sharedPrefix (the same on both sides). */
  shared: SideTotals;
  /** Row k: the k-th turn of each side after the divergence; null where a side has fewer turns. */
  turns: { a: TurnSide | null; b: TurnSide | null }[];
  /** Totals of each side's remainder (after the shared prefix). */
  totals: { a: SideTotals; b: SideTotals };
}

/** How long an item's text may be on its line, here and in the text rendering. */
export const LINE_MAX = 120;

/**
 * Whether position i of both views is the same entry. With origins, by where it is stored, so a
 * fork and its parent share exactly the positions the fork reads through (its `fork/start` and the
 * parent's next entry differ even if alike). Without, by kind, name and payload; a `session/start`
 * is each session's own, so two sessions never share one by content.
 */
function sameEntry(a: ComparedSession, b: ComparedSession, x: Entry, y: Entry): boolean {
  if (a.origin !== undefined && b.origin !== undefined) {
    const p = a.origin(x.entryId);
    const q = b.origin(y.entryId);
    return p.sessionId === q.sessionId && p.entryId === q.entryId;
  }
  if (isSessionStart(x) || isSessionStart(y)) return false;
  return x.kind === y.kind && x.name === y.name && jsonEqual(x.payload, y.payload);
}

function sharedPrefixOf(a: ComparedSession, b: ComparedSession): number {
  const n = Math.min(a.entries.length, b.entries.length);
  let i = 0;
  while (i < n && sameEntry(a, b, a.entries[i], b.entries[i])) i++;
  return i;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

function firstLineOf(content: string): string {
  const line = content.split('\n').find((l) => l.trim() !== '') ?? '';
  return oneLine(line, LINE_MAX);
}

const turnIdOf = (entry: Entry): string | null => {
  const t = (entry.meta as { turnId?: unknown }).turnId;
  return typeof t === 'string' ? t : null;
};

function effectiveIds(view: EffectiveView | undefined): Set<number> | null {
  if (view === undefined) return null;
  return new Set([...view.messages, ...view.toolCalls, ...view.toolResults].map((f) => f.entryId));
}

/** An amendment as an item; one whose data does not parse (another agent's, a hand-edited tape) is not listed. */
function amendmentItemOf(entry: Entry): ComparedItem | null {
  const data = entry.payload.data;
  const { entryId } = entry;
  switch (entry.name) {
    case PIN_EVENT: {
      const d = pinData.safeParse(data);
      if (!d.success) return null;
      const facts = (d.data.facts ?? []).map((f) => oneLine(`${f.kind}: ${f.value}`, LINE_MAX));
      return { kind: 'compaction_pin', entryId, anchorEntryId: d.data.anchorEntryId, entryIds: d.data.entryIds ?? [], facts };
    }
    case SUMMARY_EDIT_EVENT: {
      const d = summaryEditData.safeParse(data);
      return d.success ? { kind: 'compaction_summary_edit', entryId, anchorEntryId: d.data.anchorEntryId, firstLine: firstLineOf(d.data.summary) } : null;
    }
    case UNDO_EVENT: {
      const d = undoData.safeParse(data);
      return d.success
        ? {
            kind: 'compaction_undo',
            entryId,
            anchorEntryId: d.data.anchorEntryId,
            reason: d.data.reason === undefined ? null : oneLine(d.data.reason, LINE_MAX),
          }
        : null;
    }
    default:
      return null;
  }
}

function itemOf(entry: Entry, toolNames: ReadonlyMap<string, string>): ComparedItem | null {
  const p = entry.payload;
  switch (entry.kind) {
    case 'message':
      return { kind: 'message', entryId: entry.entryId, role: String(p.role), status: String(p.status), firstLine: firstLineOf(textOf(p.content ?? '')) };
    case 'tool_call':
      return { kind: 'tool_call', entryId: entry.entryId, name: entry.name, input: oneLine(textOf(p.input ?? null), LINE_MAX) };
    case 'tool_result':
      return { kind: 'tool_result', entryId: entry.entryId, name: toolNames.get(String(p.toolCallId)) ?? null, status: String(p.status) };
    case 'event':
      return amendmentItemOf(entry);
    default:
      return null;
  }
}

interface Counts {
  requests: number;
  tokens: TokenTotals;
  toolCalls: number;
}

function countsOf(entries: readonly Entry[], effective: ReadonlySet<number> | null): Counts {
  const c: Counts = { requests: 0, tokens: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 }, toolCalls: 0 };
  for (const e of entries) {
    if (e.kind === 'tool_call' && (effective === null || effective.has(e.entryId))) c.toolCalls++;
    if (e.kind !== 'event') continue;
    if (e.name === VIEW_ASSEMBLED) c.requests++;
    if (e.name === ATTEMPT_EVENT) {
      // The same sum as the tokenUsage projection: every physical attempt, retries included.
      const usage = (e.payload.data as { usage?: Record<string, unknown> } | null | undefined)?.usage ?? {};
      c.tokens.inputTokens += wholeInputOf(usage);
      c.tokens.outputTokens += num(usage.outputTokens);
      c.tokens.cachedTokens += num(usage.cachedTokens);
    }
  }
  return c;
}

interface Segment {
  turnId: string | null;
  startsAt: SegmentStart;
  entries: Entry[];
}

const isTurnStart = (e: Entry): boolean => e.kind === 'event' && e.name === TURN_START;

/**
 * The remainder cut at each `turn/start`. Another agent's session records no turns, so one whose
 * remainder has none is cut at each user message listed instead (with a view, an effective one: a
 * superseded draft starts no row), so each prompt faces a prompt. What comes before the first cut is
 * a segment that starts at nothing.
 */
function segmentsOf(remainder: readonly Entry[], effective: ReadonlySet<number> | null): Segment[] {
  const byTurns = remainder.some(isTurnStart);
  const startOf = (e: Entry): SegmentStart => {
    if (byTurns) return isTurnStart(e) ? 'turn_start' : null;
    const prompt = e.kind === 'message' && e.payload.role === 'user' && (effective === null || effective.has(e.entryId));
    return prompt ? 'user_message' : null;
  };
  const segments: Segment[] = [];
  for (const e of remainder) {
    const startsAt = startOf(e);
    if (startsAt !== null) segments.push({ turnId: startsAt === 'turn_start' ? turnIdOf(e) : null, startsAt, entries: [e] });
    else if (segments.length === 0) segments.push({ turnId: null, startsAt: null, entries: [e] });
    else segments[segments.length - 1].entries.push(e);
  }
  return segments;
}

function sideOf(session: ComparedSession, sharedPrefix: number): { turns: TurnSide[]; totals: SideTotals } {
  const toolNames = new Map<string, string>();
  for (const e of session.entries) if (e.kind === 'tool_call') toolNames.set(String(e.payload.toolCallId), e.name);
  const effective = effectiveIds(session.view);
  const changes = turnChanges(session.entries);
  const remainder = session.entries.slice(sharedPrefix);
  const turns = segmentsOf(remainder, effective).map(({ turnId, startsAt, entries }): TurnSide => {
    const items: ComparedItem[] = [];
    for (const e of entries) {
      if (effective !== null && (e.kind === 'message' || e.kind === 'tool_call' || e.kind === 'tool_result') && !effective.has(e.entryId)) continue;
      const item = itemOf(e, toolNames);
      if (item !== null) items.push(item);
    }
    const change = turnId === null ? undefined : changes.get(turnId);
    return {
      turnId,
      startsAt,
      fromEntryId: entries[0].entryId,
      toEntryId: entries[entries.length - 1].entryId,
      items,
      ...countsOf(entries, effective),
      files: change?.files ?? null,
      filesOmitted: change?.filesOmitted ?? 0,
    };
  });
  return { turns, totals: totalsOf(remainder, turns, effective) };
}

function totalsOf(entries: readonly Entry[], turns: readonly TurnSide[], effective: ReadonlySet<number> | null): SideTotals {
  const paths = new Set<string>();
  for (const t of turns) for (const f of t.files ?? []) paths.add(f.path);
  return { entries: entries.length, ...countsOf(entries, effective), filesChanged: [...paths].sort() };
}

/**
 * Two sessions side by side (a fork and its parent, a re-run, an evaluation, any two). The result,
 * which `agent-tape diff --json` prints as it is:
 * - `a`, `b`: each session's id and `headEntryId` (its view's last position);
 * - `sharedPrefix`: how many leading view positions are the same entry in both (see `sameEntry`:
 *   a fork and its parent share exactly the fork point; two unrelated sessions share 0, since
 *   each one's `session/start` is its own);
 * - `shared`: `{entries, requests, tokens: {inputTokens, outputTokens, cachedTokens}, toolCalls,
 *   filesChanged}` of the shared positions;
 * - `turns`: the remainders aligned, row k holding the k-th turn after the divergence of each side
 *   (`{turnId, startsAt, fromEntryId, toEntryId, items, requests, tokens, toolCalls, files,
 *   filesOmitted}`, or null where that side has fewer). A side is cut at its `turn/start`s
 *   (`startsAt: "turn_start"`), or, when its remainder has none (a session ingested from another
 *   agent), at its user messages (`"user_message"`, `turnId` null); each side by its own rule.
 *   Entries before either side's first cut make a first row (`startsAt` null, or a side null when
 *   that side has none), so turn 1 stays beside turn 1.
 *   Items are `{kind: "message", entryId, role, status, firstLine}`, `{kind: "tool_call", entryId,
 *   name, input}` (input on one line, cut at 120 characters), `{kind: "tool_result", entryId,
 *   name, status}`, and the amendments of a compaction: `{kind: "compaction_pin", entryId,
 *   anchorEntryId, entryIds, facts}`, `{kind: "compaction_summary_edit", entryId, anchorEntryId,
 *   firstLine}` (of the new summary), `{kind: "compaction_undo", entryId, anchorEntryId, reason}`;
 *   `files` is the turn's `turn_end` checkpoint's list, null without checkpoints;
 * - `totals.a`, `totals.b`: the same totals as `shared`, of each remainder.
 * Tokens are summed over `provider/attempt` events (retries included), requests count
 * `view/assembled` events.
 */
export function compareSessions(a: ComparedSession, b: ComparedSession): SessionComparison {
  const sharedPrefix = sharedPrefixOf(a, b);
  const sideA = sideOf(a, sharedPrefix);
  const sideB = sideOf(b, sharedPrefix);
  // The entries before a side's first cut face the other side's, or nothing: turn 1 stays beside turn 1.
  const leading = (t: TurnSide[]) => (t.length > 0 && t[0].startsAt === null ? [t[0]] : [null]);
  const rest = (t: TurnSide[]) => (t.length > 0 && t[0].startsAt === null ? t.slice(1) : t);
  const turns: SessionComparison['turns'] = [];
  const [la] = leading(sideA.turns);
  const [lb] = leading(sideB.turns);
  if (la !== null || lb !== null) turns.push({ a: la, b: lb });
  const ra = rest(sideA.turns);
  const rb = rest(sideB.turns);
  for (let k = 0; k < Math.max(ra.length, rb.length); k++) turns.push({ a: ra[k] ?? null, b: rb[k] ?? null });
  const head = (s: ComparedSession) => ({ sessionId: s.sessionId, headEntryId: s.entries.length === 0 ? 0 : s.entries[s.entries.length - 1].entryId });
  const sharedEntries = a.entries.slice(0, sharedPrefix);
  const sharedTurns = turnChanges(sharedEntries);
  const sharedPaths = new Set<string>();
  for (const t of sharedTurns.values()) for (const f of t.files) sharedPaths.add(f.path);
  return {
    a: head(a),
    b: head(b),
    sharedPrefix,
    shared: { entries: sharedPrefix, ...countsOf(sharedEntries, effectiveIds(a.view)), filesChanged: [...sharedPaths].sort() },
    turns,
    totals: { a: sideA.totals, b: sideB.totals },
  };
}
