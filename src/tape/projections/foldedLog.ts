import { RETRACTED_EVENT } from '../entryNames';
import { type Entry } from '../entry';
import { applyRows, foldRowOf, newFoldState, type FoldRow, type FoldState } from '../fold';
import { LogReduction, type SharedLog } from './sharedLog';

/**
 * For projections that follow the fold (SPEC 2.3): their state logs the rows of the entries the fold
 * needs, each with what the projection read from its payload, and their view folds the log. The
 * fold is incremental and cached per log, so a view costs the rows appended since the last one.
 */
export interface FoldFact<X> {
  readonly row: FoldRow;
  /** What the projection needs of this entry's payload, so the view never loads entries. */
  readonly value: X | undefined;
}

export type FactLog<X> = SharedLog<FoldFact<X>>;

export interface FoldedFacts<X> {
  /** Folded without pending messages, like a model request: a message still streaming does not count yet. */
  readonly fold: FoldState;
  /** Values by entryId; the reduction's own map, to read and never to change. */
  readonly values: Map<number, X>;
}

export const factOf = <X>(entry: Entry, value?: X): FoldFact<X> => ({ row: foldRowOf(entry), value });

/** Messages and retractions decide which messages are effective, so every fold-following log keeps them. */
export const decidesEffectiveness = (entry: Entry): boolean => entry.kind === 'message' || (entry.kind === 'event' && entry.name === RETRACTED_EVENT);

/** A reduction per projection: each keeps its own cache, keyed by its own logs. */
export const foldReduction = <X>(): LogReduction<FoldFact<X>, FoldedFacts<X>> =>
  new LogReduction<FoldFact<X>, FoldedFacts<X>>(
    () => ({ fold: newFoldState({ includePending: false }), values: new Map() }),
    (acc, fact) => {
      if (fact.value !== undefined) acc.values.set(fact.row.entryId, fact.value);
      applyRows(acc.fold, [fact.row]);
    },
  );
