import type { TapeStore } from '../store/tapeStore';
import type { Entry } from '../tape/entry';
import { ATTEMPT_EVENT, SYSTEM_PROMPT, TURN_END, TURN_START } from '../tape/entryNames';
import type { FoldRow } from '../tape/fold';
import { genAiSpans, turnsOf, type GenAiSpan, type ProjectionOptions, type Turn } from './genAiSpans';
import { sessionPlacement } from './sessionPlacement';
import { spanIdOf } from './spanIds';

/**
 * The spans of one session that are finished and not yet sent, as its entries land. A span is
 * sent once, when it can no longer change: a model request at once (its attempt entry is final),
 * a tool call with its result, a turn when it is over (our agent's `turn/end`, a later turn, or
 * no append to the session for `quietMs`: other agents' records mark no end). So children reach
 * the backend before their turn, as a tracer's would.
 *
 * Only the open turns are read again on each collection: the window starts at the first entry
 * of the oldest open turn, and the ids sent are kept for the open turns only.
 */
export class LiveSessionSpans {
  private windowFrom: number;
  /** Whether the window's first turn is the session's first (the one that carries a fork's link). */
  private windowAtFirstTurn: boolean;
  private sent = new Set<string>();
  /** The last entry looked at: appends that finish no span (an answer's revisions) are told from their rows alone. */
  private seen: number;
  /** The window's entries read so far (entries never change): a collection reads only what landed since. */
  private window: Entry[] = [];

  /** Starts with the append that made the session known: what was on the tape before it is history, not sent. */
  constructor(
    store: TapeStore,
    readonly sessionId: string,
    readonly agent: string,
    firstNewEntryId: number,
    private readonly options: ProjectionOptions,
  ) {
    this.seen = firstNewEntryId - 1;
    // Only the session's last turn before the new entries is read, found by its rows: a session's history can be long.
    const starts = store
      .foldRows(sessionId, 0)
      .filter((r) => r.entryId < firstNewEntryId && ((r.kind === 'event' && r.name === TURN_START) || (r.kind === 'message' && r.name === 'message/user')));
    const lastTurnStart = starts.filter((r) => r.kind === 'event').at(-1);
    // A turn of ours starts at its turn/start, its user message after it; other agents' turns at a user message.
    const from = (lastTurnStart ?? starts.at(-1))?.entryId ?? 1;
    const before = store.entries(sessionId, { fromEntryId: from, toEntryId: firstNewEntryId - 1 });
    const turns = turnsOf(before);
    const last = turns.at(-1);
    this.windowFrom = last === undefined ? firstNewEntryId : last.entries[0].entryId;
    this.windowAtFirstTurn = turns.length <= 1 && !starts.some((r) => r.entryId < from);
    if (last !== undefined) {
      for (const s of this.project(store, last.entries)) this.sent.add(s.spanId);
      // A turn still open goes out when it ends; one already over was history.
      if (!endsHere(last)) this.sent.delete(this.turnSpanId(last));
    }
  }

  private turnSpanId(turn: Turn): string {
    return spanIdOf(this.sessionId, 'turn', turn.key);
  }

  private project(store: TapeStore, entries: readonly Entry[]): GenAiSpan[] {
    const placement = sessionPlacement(store, this.sessionId, this.agent);
    return genAiSpans(
      [...this.promptBefore(store, entries), ...entries],
      this.windowAtFirstTurn ? placement : { ...placement, firstTurnLinks: [] },
      this.options,
    );
  }

  /**
   * The system prompt in force where the window starts, as an entry before any turn (where
   * genAiSpans reads it): the window leaves out the session's start, where our agent writes it.
   * Its turn id is dropped, so it never stands for a turn already sent.
   */
  private promptBefore(store: TapeStore, entries: readonly Entry[]): Entry[] {
    if (this.options.content !== true || entries.length === 0) return [];
    const prompt = store.entries(this.sessionId, { kind: 'system', name: SYSTEM_PROMPT, toEntryId: entries[0].entryId - 1 }).at(-1);
    if (prompt === undefined) return [];
    const { turnId: _payloadTurn, ...payload } = prompt.payload;
    const { turnId: _metaTurn, ...meta } = prompt.meta;
    return [{ ...prompt, payload, meta }];
  }

  /**
   * The spans finished since the last call. `quiet`: nothing was appended to the session for a
   * while, so a turn of another agent's records is over (ours are over at their `turn/end` only:
   * a model may think for minutes). `closeAll`: every turn is over (the exporter is closing).
   */
  collect(store: TapeStore, quiet: boolean, closeAll: boolean): GenAiSpan[] {
    // Most appends during a turn are the answer's revisions: the rows (no payloads, held in memory) tell them apart cheaply.
    const rows = store.foldRows(this.sessionId, this.seen);
    if (rows.length > 0) this.seen = rows[rows.length - 1].entryId;
    if (!quiet && !closeAll && !rows.some(finishesSpan)) return [];
    const read = this.window.at(-1)?.entryId ?? this.windowFrom - 1;
    this.window.push(...store.entries(this.sessionId, { fromEntryId: Math.max(read + 1, this.windowFrom) }));
    const entries = this.window;
    if (entries.length === 0) return [];
    const turns = turnsOf(entries);
    // Over for good: the window moves past it. A turn only quiet is sent but kept: its agent may yet append to it.
    const over = (t: Turn, i: number): boolean => closeAll || i < turns.length - 1 || endsHere(t);
    const closed = new Set(turns.filter((t, i) => over(t, i) || (quiet && !startsHere(t))).map((t) => this.turnSpanId(t)));
    const ready: GenAiSpan[] = [];
    const spans = this.project(store, entries);
    for (const s of spans) {
      if (this.sent.has(s.spanId)) continue;
      const turnSpan = s.parentSpanId !== null && closed.has(s.parentSpanId) ? s.parentSpanId : s.spanId;
      const finished =
        s.attributes['gen_ai.operation.name'] === 'chat' ||
        (s.attributes['gen_ai.operation.name'] === 'execute_tool' && s.attributes['agent_tape.result_entry_id'] !== undefined) ||
        closed.has(turnSpan);
      if (finished) ready.push(s);
    }
    const kept = turns.filter((t, i) => !over(t, i));
    if (kept.length < turns.length) {
      this.windowFrom = kept.length > 0 ? kept[0].entries[0].entryId : entries[entries.length - 1].entryId + 1;
      this.window = entries.filter((e) => e.entryId >= this.windowFrom);
      this.windowAtFirstTurn = this.windowAtFirstTurn && !over(turns[0], 0);
      // Only the kept turns' ids are remembered: a turn over for good will not be read again.
      const keptTurns = new Set(kept.map((t) => this.turnSpanId(t)));
      const inKept = (s: GenAiSpan): boolean => keptTurns.has(s.spanId) || (s.parentSpanId !== null && keptTurns.has(s.parentSpanId));
      const keep = new Set(spans.filter(inKept).map((s) => s.spanId));
      for (const s of ready) if (keep.has(s.spanId)) this.sent.add(s.spanId);
      this.sent = new Set([...this.sent].filter((id) => keep.has(id)));
    } else for (const s of ready) this.sent.add(s.spanId);
    return ready;
  }

  /** Whether a turn is still open (collect would read it again). */
  hasOpenTurn(store: TapeStore): boolean {
    return store.headEntryId(this.sessionId) >= this.windowFrom;
  }
}

const marks = (turn: Turn, name: string): boolean => turn.entries.some((e) => e.kind === 'event' && e.name === name);
const endsHere = (turn: Turn): boolean => marks(turn, TURN_END);
const startsHere = (turn: Turn): boolean => marks(turn, TURN_START);

/** Rows after which a span may be finished: a request's attempt, a tool's result, a turn's start or end, a user message (other agents' turns start there). */
const finishesSpan = (r: FoldRow): boolean =>
  r.kind === 'tool_result' ||
  (r.kind === 'event' && (r.name === ATTEMPT_EVENT || r.name === TURN_END || r.name === TURN_START)) ||
  (r.kind === 'message' && r.name === 'message/user');
