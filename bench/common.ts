import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { NewEntry } from '../src/tape/entry';
import { rowTupleOf, type RowTuple } from '../src/store/rowTuple';

export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-bench-'));

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

/** A message of about `bytes` bytes of JSON, varied so compression and caches do not flatter. */
export function messageOf(i: number, bytes = 1024): NewEntry {
  const filler = `entry ${i} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes - 120);
  return {
    kind: 'message',
    name: i % 2 ? 'message/assistant' : 'message/user',
    payload: { messageId: `m${i}`, role: i % 2 ? 'assistant' : 'user', status: 'sent', orderSeq: i, content: filler },
  };
}

/**
 * A realistic session's rows: messages with tool calls and results, some pending revisions and
 * retractions, an anchor now and then. Built directly as rows for bulk loading.
 */
export function sessionRows(sessionId: string, n: number, payloadBytes = 200): RowTuple[] {
  const rows: RowTuple[] = [];
  const push = (kind: NewEntry['kind'], name: string, payload: Record<string, unknown>): void => {
    const entry = { sessionId, entryId: rows.length + 1, kind, name, provenanceKey: null, payload, meta: {}, createdAt: 1_700_000_000_000 + rows.length };
    rows.push(rowTupleOf(entry, JSON.stringify(payload), '{}'));
  };
  push('anchor', 'session/start', { name: 'session/start', state: { sessionId } });
  const text = 'x'.repeat(payloadBytes);
  for (let m = 0; rows.length < n; m++) {
    const messageId = `m${m}`;
    const role = m % 2 ? 'assistant' : 'user';
    if (m % 5 === 1) push('message', `message/${role}`, { messageId, role, status: 'pending', orderSeq: m, content: text });
    push('message', `message/${role}`, { messageId, role, status: 'sent', orderSeq: m, content: text });
    if (role === 'assistant') {
      push('tool_call', 'read_file', { messageId, toolCallId: `t${m}`, name: 'read_file', input: { path: text } });
      push('tool_result', 'read_file', { messageId, toolCallId: `t${m}`, status: 'ok', output: text });
    }
    if (m % 50 === 49) push('event', 'message/retracted', { name: 'message/retracted', data: { messageId: `m${m - 2}` } });
    if (m % 500 === 499) push('anchor', 'compaction/auto', { name: 'compaction/auto', state: { summary: text, cursorOrderSeq: m } });
  }
  return rows.slice(0, n);
}

export function targets(checks: Record<string, boolean>): Record<string, 'met' | 'not met'> {
  return Object.fromEntries(Object.entries(checks).map(([k, v]) => [k, v ? 'met' : 'not met']));
}
