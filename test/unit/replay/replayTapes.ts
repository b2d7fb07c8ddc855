import { FORK_MERGE, FORK_START, SUBAGENT_LINKED } from '../../../src/tape/entryNames';
import { TapeStore } from '../../../src/store/tapeStore';
import { rowTupleOf } from '../../../src/store/rowTuple';
import type { Entry } from '../../../src/tape/entry';
import { forkSessionId, subagentSessionId } from '../../../src/tape/fork';
import { TapeBuilder } from '../tape/tapeBuilder';

/** An in-memory store holding these entries as they are (ids, sessions and times included). */
export const storeOf = (entries: readonly Entry[]): Promise<TapeStore> =>
  TapeStore.inMemory(entries.map((e) => rowTupleOf(e, JSON.stringify(e.payload), JSON.stringify(e.meta))));

export const PARENT = 'parent';
export const CHILD = subagentSessionId(PARENT, 'c1');
export const FORK = forkSessionId(PARENT, 'f1');

/**
 * A parent session that ran a subagent (linked at entry 6, head frozen at 3 of the child's 4
 * entries) and merged a fork taken at entry 4 (receipt at entry 9, after the merged copy at 8):
 *
 *   parent: 1 session/start, 2 user, 3 assistant, 4 anchor handoff/plan, 5 user,
 *           6 subagent/linked, 7 assistant, 8 assistant (merged), 9 fork/merge
 *   child:  1 session/start, 2 user, 3 assistant, 4 user (after the frozen head)
 *   fork:   1 session/start, 2 fork/start (position 5 in the fork's view), 3 assistant (position 6)
 */
export function linkedTape(): Entry[] {
  const child = new TapeBuilder(CHILD);
  child.anchor('session/start', { sessionId: CHILD });
  child.user('c-u1', 'child task');
  child.assistant('c-a1', 'child answer');
  child.user('c-u2', 'after the link');

  const fork = new TapeBuilder(FORK);
  fork.anchor('session/start', { sessionId: FORK });
  fork.anchor(FORK_START, { parentSessionId: PARENT, parentHeadEntryId: 4, forkId: 'f1' });
  fork.assistant('f-a1', 'fork answer', { orderSeq: 10 });

  const parent = new TapeBuilder(PARENT);
  parent.anchor('session/start', { sessionId: PARENT });
  parent.user('p-u1', 'hello');
  parent.assistant('p-a1', 'hi');
  parent.anchor('handoff/plan', { summary: 'the plan' });
  parent.user('p-u2', 'run a subagent');
  parent.event(SUBAGENT_LINKED, { childSessionId: CHILD, childHeadEntryId: 3, outcome: 'completed' });
  parent.assistant('p-a2', 'the subagent is done');
  parent.assistant('f-a1', 'fork answer', { orderSeq: 10 });
  parent.event(FORK_MERGE, {
    forkSessionId: FORK,
    forkId: 'f1',
    forkHeadEntryId: 3,
    mergedCount: 1,
    parentHeadAtFork: 4,
    parentHeadAtMerge: 7,
    parentMovedOn: true,
    orderSeqShift: 0,
  });
  return [...child.entries, ...fork.entries, ...parent.entries];
}
