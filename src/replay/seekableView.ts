import { SYSTEM_PROMPT } from '../tape/entryNames';

import {
  applyRows,
  entryIndex,
  foldAll,
  messageIndex,
  newFoldState,
  type EffectiveView,
  type FoldOptions,
  type FoldRow,
  type MessageToolFacts,
  type ViewAnchor,
  type ViewMessage,
  type ViewToolCall,
  type ViewToolResult,
} from '../tape/fold';

/** What one messageId adds to the view: its effective message (if any) and that message's tool facts. */
interface Contribution {
  message: ViewMessage | null;
  calls: readonly ViewToolCall[];
  results: readonly ViewToolResult[];
  facts: MessageToolFacts | undefined;
}

/**
 * A backward move longer than this refolds the prefix instead of undoing message by message: undoing
 * removes from the middle of the sorted lists, which costs more per message than a fold per row.
 */
const REFOLD_AFTER = 4096;

/** How many of `rows` (in entry order) are at or before `entryId`. */
const countUpTo = (rows: readonly { readonly entryId: number }[], entryId: number): number => entryIndex(rows, entryId + 1);

/**
 * The effective view of a session at any position of its rows, moved forward and back in place.
 *
 * The fold's state cannot be stepped back, and copying it is slower than refolding (a 100k-entry
 * session's state takes longer to `structuredClone` than to fold). But the fold is separable by
 * messageId: a message's place in the view, its tool facts and whether it is retracted depend only
 * on the rows that name it. So a move from p to q refolds, with the fold itself, each message the
 * rows between p and q name, over that message's own rows up to q, and swaps its old contribution
 * for the new one in the sorted lists. A step costs the rows of one message, wherever the cursor is.
 */
export class SeekableView {
  private position = 0;
  private messages: ViewMessage[] = [];
  private toolCalls: ViewToolCall[] = [];
  private toolResults: ViewToolResult[] = [];
  private toolFacts = new Map<string, MessageToolFacts>();
  private anchors: ViewAnchor[] = [];
  private contributions = new Map<string, Contribution>();
  /** Each messageId's rows, in entry order. */
  private readonly rowsOf = new Map<string, FoldRow[]>();
  private readonly systemPrompts: { entryId: number }[] = [];

  /** `rows` are the session's rows 1..n (the row of entry k at index k - 1). */
  constructor(
    private readonly rows: readonly FoldRow[],
    private readonly options: FoldOptions,
  ) {
    for (const row of rows) {
      if (row.messageId !== null) {
        const own = this.rowsOf.get(row.messageId);
        if (own === undefined) this.rowsOf.set(row.messageId, [row]);
        else own.push(row);
      } else if (row.kind === 'system' && row.name === SYSTEM_PROMPT) this.systemPrompts.push(row);
    }
  }

  get length(): number {
    return this.rows.length;
  }

  /** The view at `entryId` (0 is the empty view); valid until the next `at` with another position. */
  at(entryId: number): EffectiveView {
    if (!Number.isInteger(entryId) || entryId < 0 || entryId > this.rows.length) throw new RangeError(`position ${entryId} is outside 0..${this.rows.length}`);
    if (entryId < this.position && this.position - entryId > REFOLD_AFTER) this.refold(entryId);
    else if (entryId !== this.position) this.move(entryId);
    const prompts = countUpTo(this.systemPrompts, entryId);
    return {
      headEntryId: entryId,
      messages: this.messages,
      toolCalls: this.toolCalls,
      toolResults: this.toolResults,
      toolFacts: this.toolFacts,
      anchors: this.anchors,
      systemPromptEntryId: prompts === 0 ? null : this.systemPrompts[prompts - 1].entryId,
    };
  }

  private move(to: number): void {
    const from = this.position;
    const touched = new Set<string>();
    for (let id = Math.min(from, to) + 1; id <= Math.max(from, to); id++) {
      const row = this.rows[id - 1];
      if (row.messageId !== null) touched.add(row.messageId);
      else if (row.kind === 'anchor' && to > from) this.anchors.push({ entryId: row.entryId, name: row.name });
    }
    while (to < from && this.anchors.length > 0 && this.anchors[this.anchors.length - 1].entryId > to) this.anchors.pop();
    this.position = to;
    for (const messageId of touched) this.refoldMessage(messageId);
  }

  private refoldMessage(messageId: string): void {
    const own = this.rowsOf.get(messageId) as FoldRow[];
    const view = applyRows(newFoldState(this.options), own.slice(0, countUpTo(own, this.position)));
    const old = this.contributions.get(messageId);
    if (old !== undefined) this.withdraw(messageId, old);
    const message = view.messages[0] ?? null;
    if (message === null) return;
    const next: Contribution = { message, calls: view.toolCalls, results: view.toolResults, facts: view.toolFacts.get(messageId) };
    this.contributions.set(messageId, next);
    this.messages.splice(messageIndex(this.messages, message.orderSeq, message.entryId), 0, message);
    for (const c of next.calls) this.toolCalls.splice(entryIndex(this.toolCalls, c.entryId), 0, c);
    for (const r of next.results) this.toolResults.splice(entryIndex(this.toolResults, r.entryId), 0, r);
    if (next.facts !== undefined) this.toolFacts.set(messageId, next.facts);
  }

  private withdraw(messageId: string, old: Contribution): void {
    this.contributions.delete(messageId);
    if (old.message !== null) this.messages.splice(messageIndex(this.messages, old.message.orderSeq, old.message.entryId), 1);
    for (const c of old.calls) this.toolCalls.splice(entryIndex(this.toolCalls, c.entryId), 1);
    for (const r of old.results) this.toolResults.splice(entryIndex(this.toolResults, r.entryId), 1);
    this.toolFacts.delete(messageId);
  }

  /** The prefix folded at once, its effective messages' contributions read back from the view. */
  private refold(to: number): void {
    const view = foldAll(this.rows.slice(0, to), this.options);
    this.messages = [...view.messages];
    this.toolCalls = [...view.toolCalls];
    this.toolResults = [...view.toolResults];
    this.anchors = [...view.anchors];
    this.toolFacts = new Map(view.toolFacts);
    this.contributions = new Map();
    for (const message of view.messages) {
      const facts = view.toolFacts.get(message.messageId);
      this.contributions.set(message.messageId, { message, calls: facts?.calls ?? [], results: facts === undefined ? [] : [...facts.results.values()], facts });
    }
    this.position = to;
  }
}
