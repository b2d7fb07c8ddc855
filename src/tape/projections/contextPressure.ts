import { cursorOf, isAfterCursor, renderCheckpoint, type Cursor } from '../context';
import { isReconstructionAnchor, RETRACTED_EVENT, textOf, type Entry } from '../entry';
import { applyRows, foldRowOf, newFoldState, type FoldState } from '../fold';
import type { Projection } from './projection';

/**
 * How full the next request's context would be under the default selector (last reconstruction
 * anchor): estimated tokens of the system prompt, the checkpoint and the effective content after
 * the cursor, against the model's window. An estimate (about four characters a token) is enough
 * for a gauge, and it needs no tokenizer in the domain layer.
 */
export const CHARS_PER_TOKEN = 4;
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const estimate = (v: unknown): number => {
  const text = textOf(v);
  return Math.ceil(text.length / CHARS_PER_TOKEN);
};

export interface ContextPressureState {
  readonly fold: FoldState;
  /** Estimated tokens per message/tool entry; the fold decides which of them count. */
  readonly tokens: Map<number, number>;
  readonly systemTokens: number;
  readonly checkpointTokens: number;
  readonly cursor: Cursor | null;
}

export interface ContextPressure {
  estimatedTokens: number;
  contextWindow: number;
  /** estimatedTokens / contextWindow; above 1 the next request will not fit without compaction. */
  ratio: number;
}

function tokensOf(entry: Entry): number | null {
  switch (entry.kind) {
    case 'message':
      return estimate(entry.payload.content);
    case 'tool_call':
      return estimate(entry.payload.input ?? null);
    case 'tool_result':
      return estimate(entry.payload.output);
    default:
      return null;
  }
}

/** Applying is O(1) per entry; the view walks the folded arrays, which is fine for a gauge read on demand. */
export function contextPressureProjection(contextWindow = DEFAULT_CONTEXT_WINDOW): Projection<ContextPressureState, ContextPressure> {
  return {
    key: 'contextPressure',
    version: 1,
    init: () => ({ fold: newFoldState({ includePending: false }), tokens: new Map(), systemTokens: 0, checkpointTokens: 0, cursor: null }),
    apply(state: ContextPressureState, entry: Entry): ContextPressureState {
      let { systemTokens, checkpointTokens, cursor } = state;
      const t = tokensOf(entry);
      if (t !== null) state.tokens.set(entry.entryId, t);
      else if (entry.kind === 'system' && entry.name === 'system/prompt') systemTokens = estimate(entry.payload.content);
      else if (entry.kind === 'anchor' && isReconstructionAnchor(entry.name)) {
        checkpointTokens = estimate(renderCheckpoint(entry));
        cursor = cursorOf(entry);
      } else if (!(entry.kind === 'event' && entry.name === RETRACTED_EVENT)) return state;
      applyRows(state.fold, [foldRowOf(entry)]);
      return { fold: state.fold, tokens: state.tokens, systemTokens, checkpointTokens, cursor };
    },
    view(state: ContextPressureState): ContextPressure {
      const { fold, tokens, cursor } = state;
      let total = state.systemTokens + state.checkpointTokens;
      const shown = new Set<string>();
      for (const m of fold.messages) {
        if (cursor !== null && !isAfterCursor(m, cursor)) continue;
        total += tokens.get(m.entryId) ?? 0;
        shown.add(m.messageId);
      }
      for (const c of fold.toolCalls) if (shown.has(c.messageId)) total += tokens.get(c.entryId) ?? 0;
      for (const r of fold.toolResults) if (shown.has(r.messageId)) total += tokens.get(r.entryId) ?? 0;
      return { estimatedTokens: total, contextWindow, ratio: total / contextWindow };
    },
  };
}
