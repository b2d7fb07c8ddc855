import type { SqlJsStatic } from 'sql.js';
import { discardFork, forkSession, mergeFork } from '../../../src/store/forks';
import type { SessionSummary } from '../../../src/store/queries';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import type { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { ingestedSessionStart } from '../../../src/tape/ingestedSession';
import { message } from './helpers';

export const toolCall = (messageId: string, toolCallId: string): NewEntry => ({
  kind: 'tool_call',
  name: 'run_command',
  payload: { messageId, toolCallId, name: 'run_command', input: { command: 'make' } },
});

export const toolResult = (messageId: string, toolCallId: string): NewEntry => ({
  kind: 'tool_result',
  name: 'run_command',
  payload: { messageId, toolCallId, status: 'ok', output: 'done' },
});

export const anchor = (name: string): NewEntry => ({ kind: 'anchor', name, payload: { name, state: { summary: name } } });

/** An ingested session with an id of its own (a Roo Code subtask): only a link on another session names its parent. */
export const INGESTED_CHILD = 'roo-code:task-2';

/**
 * A tape with each kind of session a sessions view shows: a parent with a merged, a discarded and
 * an open fork, a linked and a running subagent, an ingested session that the parent links, and
 * (with `unansweredCall`) a tool call a crash left without a result, which a writable open repairs.
 */
export async function buildFamilyTape(store: TapeStore, opts: { unansweredCall: boolean }): Promise<void> {
  await store.appendMany('p', [
    message('u1', 'first question', { orderSeq: 1 }),
    message('a1', 'first answer', { role: 'assistant', orderSeq: 2 }),
    toolCall('a1', 'c1'),
    toolResult('a1', 'c1'),
    anchor('context/summary'),
  ]);
  const merged = await forkSession(store, 'p', { forkId: 'merged' });
  await store.appendMany(merged.forkSessionId, [message('u2', 'try this', { orderSeq: 3 })]);
  await mergeFork(store, merged.forkSessionId);
  const discarded = await forkSession(store, 'p', { at: 2, forkId: 'dropped' });
  await discardFork(store, discarded.forkSessionId, 'not needed');
  const open = await forkSession(store, 'p', { forkId: 'open' });
  await store.appendMany(open.forkSessionId, [message('u3', 'still going', { orderSeq: 4 })]);
  const { childSessionId } = await startSubagent(store, 'p', { task: 'dig' });
  await store.appendMany(childSessionId, [message('d1', 'found it', { role: 'assistant', orderSeq: 1 })]);
  await linkSubagent(store, 'p', childSessionId, 'completed');
  await startSubagent(store, 'p', { task: 'still digging' });
  await store.appendMany(INGESTED_CHILD, [ingestedSessionStart(INGESTED_CHILD, 'roo-code'), message('r1', 'subtask', { orderSeq: 1 })]);
  await linkSubagent(store, 'p', INGESTED_CHILD, 'completed');
  if (opts.unansweredCall) await store.appendMany('p', [message('a9', 'running it', { role: 'assistant', orderSeq: 9 }), toolCall('a9', 'c9')]);
}

/** What listing the sessions returned before schema 3: the summaries worked out from every row. */
export function summariesFromRows(SQL: SqlJsStatic, image: Uint8Array): SessionSummary[] {
  const db = new SQL.Database(image);
  try {
    const r = db.exec(`SELECT session_id, max(entry_id), count(*), sum(kind = 'anchor'), min(created_at), max(created_at)
      FROM entries GROUP BY session_id ORDER BY min(id)`);
    return (r[0]?.values ?? []).map(([sessionId, headEntryId, entryCount, anchorCount, firstCreatedAt, lastCreatedAt]) => ({
      sessionId: sessionId as string,
      headEntryId: headEntryId as number,
      entryCount: entryCount as number,
      anchorCount: anchorCount as number,
      firstCreatedAt: firstCreatedAt as number,
      lastCreatedAt: lastCreatedAt as number,
    }));
  } finally {
    db.close();
  }
}
