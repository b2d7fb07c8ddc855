import { PIN_EVENT, SUMMARY_EDIT_EVENT, SYSTEM_PROMPT, UNDO_EVENT } from '../entryNames';
import { contextItems, cursorOf, renderCheckpoint, type Cursor } from '../context';
import { isReconstructionAnchor, pinData, summaryEditData, textOf, type Entry } from '../entry';
import { viewOf } from '../fold';
import { INTERRUPTED_OUTPUT } from '../toolPairs';
import { decidesEffectiveness, factOf, foldReduction, type FactLog } from './foldedLog';
import type { Projection } from './projection';
import { appendLog, emptyLog } from './sharedLog';

/**
 * How full the next request's context would be under the default selector (the reconstruction
 * anchor in force, with its amendments): estimated tokens of the system prompt, the checkpoint,
 * what is pinned to it and the context items after the cursor. An estimate (about four characters a token) is enough for a gauge, and it needs no
 * tokenizer in the domain layer. The window is the caller's: one state serves every model.
 */
export const CHARS_PER_TOKEN = 4;
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const estimate = (v: unknown): number => Math.ceil(textOf(v).length / CHARS_PER_TOKEN);

/** A reconstruction anchor as the gauge counts it, amended as the fold amends it (anchorFold.ts). */
interface AnchorGauge {
  readonly anchor: Entry;
  readonly checkpointTokens: number;
  readonly cursor: Cursor;
  /** Pinned facts' tokens; pinned entries are counted from the facts when the view is read. */
  readonly pinnedTokens: number;
  readonly pinnedEntryIds: readonly number[];
  readonly undone: boolean;
}

export interface ContextPressureState {
  /** Message and tool rows with their estimated tokens, and retractions: the fold decides which count. */
  readonly facts: FactLog<number>;
  readonly systemTokens: number;
  /** Every reconstruction anchor, in tape order: an undo can bring back the one before. */
  readonly anchors: readonly AnchorGauge[];
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

function inForceIndex(anchors: readonly AnchorGauge[]): number {
  let i = anchors.length - 1;
  while (i >= 0 && anchors[i].undone) i--;
  return i;
}

/** The state with the anchor in force amended by `entry`, or null when it is no amendment. */
function amended(state: ContextPressureState, entry: Entry): ContextPressureState | null {
  if (entry.kind !== 'event' || (entry.name !== PIN_EVENT && entry.name !== SUMMARY_EDIT_EVENT && entry.name !== UNDO_EVENT)) return null;
  const i = inForceIndex(state.anchors);
  if (i < 0) return state;
  const a = state.anchors[i];
  let next: AnchorGauge = a;
  if (entry.name === UNDO_EVENT) next = { ...a, undone: true };
  else if (entry.name === SUMMARY_EDIT_EVENT) {
    const edit = summaryEditData.safeParse(entry.payload.data);
    if (edit.success) next = { ...a, checkpointTokens: estimate(renderCheckpoint(a.anchor, edit.data.summary)) };
  } else {
    const pin = pinData.safeParse(entry.payload.data);
    if (pin.success) {
      const facts = (pin.data.facts ?? []).reduce((n, f) => n + estimate(`- ${f.kind}: ${f.value}`), 0);
      next = { ...a, pinnedTokens: a.pinnedTokens + facts, pinnedEntryIds: [...a.pinnedEntryIds, ...(pin.data.entryIds ?? [])] };
    }
  }
  const anchors = [...state.anchors];
  anchors[i] = next;
  return { ...state, anchors };
}
const folded = foldReduction<number>();

/** Applying is O(1) per entry; the view walks the effective view, which is fine for a gauge read on demand. */
export const contextPressureProjection: Projection<ContextPressureState, ContextEstimate> = {
  key: 'contextPressure',
  version: 3,
  init: () => ({ facts: emptyLog(), systemTokens: 0, anchors: [] }),
  apply(state: ContextPressureState, entry: Entry): ContextPressureState {
    const tokens = tokensOf(entry);
    if (tokens !== undefined || decidesEffectiveness(entry)) return { ...state, facts: appendLog(state.facts, factOf(entry, tokens)) };
    if (entry.kind === 'system' && entry.name === SYSTEM_PROMPT) return { ...state, systemTokens: estimate(entry.payload.content) };
    if (entry.kind === 'anchor' && isReconstructionAnchor(entry.name)) {
      const gauge: AnchorGauge = {
        anchor: entry,
        checkpointTokens: estimate(renderCheckpoint(entry)),
        cursor: cursorOf(entry),
        pinnedTokens: 0,
        pinnedEntryIds: [],
        undone: false,
      };
      return { ...state, anchors: [...state.anchors, gauge] };
    }
    return amended(state, entry) ?? state;
  },
  view(state: ContextPressureState): ContextEstimate {
    const { fold, values } = folded.of(state.facts);
    const anchor = state.anchors[inForceIndex(state.anchors)] as AnchorGauge | undefined;
    let total = state.systemTokens + (anchor === undefined ? 0 : anchor.checkpointTokens + anchor.pinnedTokens);
    const shown = new Set<number>();
    for (const item of contextItems(viewOf(fold), anchor?.cursor ?? null)) {
      if (item.kind === 'interrupted') total += INTERRUPTED_TOKENS;
      else {
        const id = item.kind === 'message' ? item.message.entryId : item.kind === 'call' ? item.call.entryId : item.result.entryId;
        shown.add(id);
        total += values.get(id) ?? 0;
      }
    }
    for (const id of new Set(anchor?.pinnedEntryIds ?? [])) if (!shown.has(id)) total += values.get(id) ?? 0;
    return { estimatedTokens: total };
  },
};
