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

// Words in roughly Zipfian frequencies (the i-th about 1/i as often as the first), so a search
// index gets long and short posting lists like an agent's transcript does.
const WORDS = (
  'the to a of and in is it that for you this with on be file not are as function error test can ' +
  'if at we have will or from by an use run line should return value type code change build ' +
  'but would one new all config import const let need method class path src index result ' +
  'check call see add fix version module server request response data string number object ' +
  'array null undefined true false async await promise export default package json npm node ' +
  'typescript compile output input update read write open close query search store tape entry ' +
  'session message tool user assistant status pending sent debug log warning info stack trace ' +
  'failed passed timeout retry cache memory disk network socket port host connection database ' +
  'table column row insert select delete schema migration journal snapshot checkpoint commit ' +
  'branch merge rebase diff patch review comment issue bug feature refactor rename move copy'
).split(' ');
// Some text is not English: about one text in twenty says something in Chinese or Japanese.
const CJK_SENTENCES = [
  '数据库连接失败，请检查配置文件。',
  '测试全部通过，没有发现新的错误。',
  '日本語のテキストを検索できるか確認します。',
  'ファイルの保存に失敗しました。',
];

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * About `bytes` of prose-like text number `i`: Zipfian words, identifiers and numbers, the
 * phrase "connection refused" in one text in 97, the word "xylophone" in one in 10007, and CJK
 * in one in 20, so searches for common, rare, phrase and CJK terms all find something.
 */
export function proseOf(i: number, bytes: number): string {
  const next = random(i + 1);
  const harmonic = Math.log(WORDS.length) + 0.5772;
  const parts: string[] = [];
  let length = 0;
  const add = (s: string): void => {
    parts.push(s);
    length += s.length + 1;
  };
  if (i % 97 === 0) add('connection refused');
  if (i % 10007 === 0) add('xylophone');
  if (i % 20 === 0) add(CJK_SENTENCES[(i / 20) % CJK_SENTENCES.length]);
  while (length < bytes) {
    const u = next();
    if (u < 0.05) add(`id_${Math.floor(next() * 1e6).toString(36)}`);
    else if (u < 0.1) add(String(Math.floor(next() * 10_000)));
    else add(WORDS[Math.min(WORDS.length - 1, Math.floor(Math.exp(next() * harmonic) - 1))]);
  }
  return parts.join(' ').slice(0, bytes);
}

/**
 * A realistic session's rows: messages with tool calls and results, some pending revisions and
 * retractions, an anchor now and then. Built directly as rows for bulk loading. The text of each
 * turn is `textOf(turn index, payloadBytes)`; by default one repeated character.
 */
export function sessionRows(sessionId: string, n: number, payloadBytes = 200, textOf = (_turn: number, bytes: number) => 'x'.repeat(bytes)): RowTuple[] {
  const rows: RowTuple[] = [];
  const push = (kind: NewEntry['kind'], name: string, payload: Record<string, unknown>): void => {
    const entry = { sessionId, entryId: rows.length + 1, kind, name, provenanceKey: null, payload, meta: {}, createdAt: 1_700_000_000_000 + rows.length };
    rows.push(rowTupleOf(entry, JSON.stringify(payload), '{}'));
  };
  push('anchor', 'session/start', { name: 'session/start', state: { sessionId } });
  for (let m = 0; rows.length < n; m++) {
    const text = textOf(m, payloadBytes);
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

/** Milliseconds `fn` took. */
export function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}
