import { contextItems, cursorOf, renderCheckpoint, type Cursor } from '../context';
import { isReconstructionAnchor, SYSTEM_PROMPT, textOf, type Entry } from '../entry';
import { viewOf } from '../fold';
import { INTERRUPTED_OUTPUT } from '../toolPairs';
import { decidesEffectiveness, factOf, foldReduction, type FactLog } from './foldedLog';
import type { Projection } from './projection';
import { appendLog, emptyLog } from './sharedLog';

/**
 * How full the next request's context would be under the default selector (last reconstruction
 * anchor): estimated tokens of the system prompt, the checkpoint and the context items after the
 * cursor. An estimate (about four characters a token) is enough for a gauge, and it needs no
 * tokenizer in the domain layer. The window is the caller's: one state serves every model.
 */
export const CHARS_PER_TOKEN = 4;
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const estimate = (v: unknown): number => Math.ceil(textOf(v).length / CHARS_PER_TOKEN);

export interface ContextPressureState {
  /** Message and tool rows with their estimated tokens, and retractions: the fold decides which count. */
  readonly facts: FactLog<number>;
  readonly systemTokens: number;
  readonly checkpointTokens: number;
  readonly cursor: Cursor | null;
}

export interface ContextEstimate {
  readonly estimatedTokens: number;
}

export interface ContextPressure extends ContextEstimate {
  readonly contextWindow: number;
  /** estimatedTokens / contextWindow; above 1 the next request will not fit without compaction. */
  readonly ratio: number;
}

/** The pressure of an estimate on a model's window. */
export const pressureOf = (view: ContextEstimate, contextWindow = DEFAULT_CONTEXT_WINDOW): ContextPressure => ({
  estimatedTokens: view.estimatedTokens,
  contextWindow,
  ratio: view.estimatedTokens / contextWindow,
});

function tokensOf(entry: Entry): number | undefined {
  switch (entry.kind) {
    case 'message':
      return estimate(entry.payload.content);
    case 'tool_call':
      return estimate(entry.payload.input ?? null);
    case 'tool_result':
      return estimate(entry.payload.output);
    default:
      return undefined;
  }
}

const INTERRUPTED_TOKENS = estimate(INTERRUPTED_OUTPUT);
const folded = foldReduction<number>();

/** Applying is O(1) per entry; the view walks the effective view, which is fine for a gauge read on demand. */
export const contextPressureProjection: Projection<ContextPressureState, ContextEstimate> = {
  key: 'contextPressure',
  version: 2,
  init: () => ({ facts: emptyLog(), systemTokens: 0, checkpointTokens: 0, cursor: null }),
  apply(state: ContextPressureState, entry: Entry): ContextPressureState {
    const tokens = tokensOf(entry);
    if (tokens !== undefined || decidesEffectiveness(entry)) return { ...state, facts: appendLog(state.facts, factOf(entry, tokens)) };
    if (entry.kind === 'system' && entry.name === SYSTEM_PROMPT) return { ...state, systemTokens: estimate(entry.payload.content) };
    if (entry.kind === 'anchor' && isReconstructionAnchor(entry.name)) {
      return { ...state, checkpointTokens: estimate(renderCheckpoint(entry)), cursor: cursorOf(entry) };
    }
    return state;
  },
  view(state: ContextPressureState): ContextEstimate {
    const { fold, values } = folded.of(state.facts);
    let total = state.systemTokens + state.checkpointTokens;
    for (const item of contextItems(viewOf(fold), state.cursor)) {
      if (item.kind === 'interrupted') total += INTERRUPTED_TOKENS;
      else total += values.get(item.kind === 'message' ? item.message.entryId : item.kind === 'call' ? item.call.entryId : item.result.entryId) ?? 0;
    }
    return { estimatedTokens: total };
  },
};
