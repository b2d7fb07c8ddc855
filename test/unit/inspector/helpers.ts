import * as fs from 'fs';
import { parseJsonl } from '../../../src/store/jsonl';
import { TapeStore } from '../../../src/store/tapeStore';
import type { JsonObject, NewEntry } from '../../../src/tape/entry';
import { FIXTURE } from './fixtureTape';

export const fixtureLines = (): string[] => fs.readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');

/** The committed sample tape, loaded read-only as the inspector opens a `.tape.jsonl`. */
export const fixtureStore = (): Promise<TapeStore> => TapeStore.inMemory(parseJsonl(fs.readFileSync(FIXTURE, 'utf8'), FIXTURE), { readOnly: true });

export function message(
  messageId: string,
  role: 'user' | 'assistant',
  orderSeq: number,
  content: string,
  status: 'pending' | 'sent' | 'error' = 'sent',
  meta?: JsonObject,
): NewEntry {
  return { kind: 'message', name: `message/${role}`, payload: { messageId, role, status, orderSeq, content }, ...(meta ? { meta } : {}) };
}

export const toolCall = (messageId: string, toolCallId: string, name: string, input: unknown): NewEntry => ({
  kind: 'tool_call',
  name,
  payload: { messageId, toolCallId, name, input },
});

export const toolResult = (messageId: string, toolCallId: string, name: string, status: 'ok' | 'error', output: unknown): NewEntry => ({
  kind: 'tool_result',
  name,
  payload: { messageId, toolCallId, status, output },
});

export const retraction = (messageId: string): NewEntry => ({
  kind: 'event',
  name: 'message/retracted',
  payload: { name: 'message/retracted', data: { messageId } },
});

export const event = (name: string, data: unknown): NewEntry => ({ kind: 'event', name, payload: { name, data } });

export const anchor = (name: string, state: unknown): NewEntry => ({ kind: 'anchor', name, payload: { name, state } });

/**
 * A session with one of each transcript marker:
 * 1 session/start, 2 m1 user, 3-4 m2 pending then sent (revised), 5-6 its call and result,
 * 7 m3 user, 8 m3 retracted, 9 compaction covering orderSeq <= 2, 10 m4 merged from a fork,
 * 11 m5 pending, 12 m6 error.
 */
export async function markerStore(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  await store.appendMany('s', [
    message('m1', 'user', 1, 'hello'),
    message('m2', 'assistant', 2, 'par', 'pending'),
    message('m2', 'assistant', 2, 'partial answer'),
    toolCall('m2', 'c1', 'read_file', { path: 'a.txt' }),
    toolResult('m2', 'c1', 'read_file', 'ok', 'the content'),
    message('m3', 'user', 3, 'oops'),
    retraction('m3'),
    anchor('compaction/manual', { summary: 'Said hello.', cursorOrderSeq: 2 }),
    message('m4', 'user', 4, 'from the fork', 'sent', { mergedFrom: 'fork-1' }),
    message('m5', 'assistant', 5, 'stream', 'pending'),
    message('m6', 'assistant', 6, 'the provider failed', 'error'),
  ]);
  return store;
}
