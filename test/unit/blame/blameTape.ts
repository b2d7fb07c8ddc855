import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import { sessionMetaEntry, type FormatName } from '../../../src/ingest/format';
import type { NewEntry } from '../../../src/tape/entry';
import { ingestedSessionStart } from '../../../src/tape/ingestedSession';
import { messageEntry, toolCallEntry, toolResultEntry, type TurnRef } from '../../../src/tape/turnEntries';
import type { TapeStore } from '../../../src/store/tapeStore';

/** Entries of a tape that edits files, as our agent and the ingests write them, for the blame tests. */

let seq = 0;

/** A user prompt of the turn. */
export const prompt = (turn: TurnRef, content: string): NewEntry =>
  messageEntry(turn, { messageId: `u${++seq}`, role: 'user', orderSeq: seq, content, status: 'sent' });

/** A tool call and, unless `result` is null, its result. */
export function call(turn: TurnRef, name: string, input: unknown, result: 'ok' | 'error' | null = 'ok'): NewEntry[] {
  const id = `call${++seq}`;
  const entries = [toolCallEntry(turn, `m${seq}`, id, name, input)];
  if (result !== null) entries.push(toolResultEntry(turn, `m${seq}`, id, name, { status: result, output: result === 'ok' ? 'done' : 'failed' }));
  return entries;
}

/** The result of a call made earlier (by `call(…, null)`), found by its tool call id. */
export async function resultOf(store: TapeStore, turn: TurnRef, status: 'ok' | 'error'): Promise<void> {
  const calls = store.entries(turn.sessionId, { kind: 'tool_call' });
  const last = calls[calls.length - 1].payload as { messageId: string; toolCallId: string; name: string };
  await store.append(turn.sessionId, toolResultEntry(turn, last.messageId, last.toolCallId, last.name, { status, output: '' }));
}

/** The first entries of an ingested session: its `session/start` and a `session/meta` with the folder it ran in. */
export const ingested = (sessionId: string, agent: FormatName, cwd: string, model = 'model-x'): NewEntry[] => [
  ingestedSessionStart(sessionId, agent),
  sessionMetaEntry(sessionId, { agent, cwd, model, source: '/nowhere', title: `${agent} session` }),
];

/** An ingested agent's attempt naming its model. */
export const attempt = (sessionId: string, model: string): NewEntry => ({
  kind: 'event',
  name: ATTEMPT_EVENT,
  provenanceKey: `${sessionId}/attempt/${++seq}`,
  payload: { name: ATTEMPT_EVENT, data: { model } },
});
