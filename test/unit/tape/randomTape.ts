import fc from 'fast-check';
import type { Entry } from '../../../src/tape/entry';
import { TapeBuilder } from './tapeBuilder';

/**
 * Random tapes that exercise every fold rule: few message ids (so revisions collide), orderSeq ties,
 * pending/sent/error, retractions, tool facts of messages that never exist (m5, m6), revised tool
 * facts, crash repair's stand-in results, anchors of every family, and entries the fold must ignore.
 */
const messageIds = ['m0', 'm1', 'm2', 'm3', 'm4'];
const anyMessageId = fc.constantFrom(...messageIds, 'm5', 'm6');
const callId = fc.constantFrom('c0', 'c1', 'c2');

type Op = (t: TapeBuilder) => void;

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        id: fc.constantFrom(...messageIds),
        role: fc.constantFrom('user' as const, 'assistant' as const),
        status: fc.constantFrom('pending' as const, 'sent' as const, 'error' as const),
        orderSeq: fc.integer({ min: 0, max: 5 }),
        text: fc.string({ maxLength: 12 }),
      })
      .map(
        (m): Op =>
          (t) =>
            void t.message(m.role, m.id, m.text, { status: m.status, orderSeq: m.orderSeq }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: anyMessageId, c: callId, tool: fc.constantFrom('read_file', 'todo_write', 'grep') }).map(
      (x): Op =>
        (t) =>
          void t.call(x.id, x.c, x.tool, { path: 'a.ts' }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: anyMessageId, c: callId, ok: fc.boolean() }).map(
      (x): Op =>
        (t) =>
          void t.result(x.id, x.c, 'read_file', 'out', x.ok ? 'ok' : 'error'),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ id: anyMessageId, c: callId }).map(
      (x): Op =>
        (t) =>
          void t.interrupted(x.id, x.c, 'read_file'),
    ),
  },
  {
    weight: 1,
    arbitrary: anyMessageId.map(
      (id): Op =>
        (t) =>
          void t.retract(id),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('compaction/auto', 'handoff/review', 'auto_handoff/limit', 'memory/note', 'fork/start', 'custom/x').map(
      (name): Op =>
        (t) =>
          void t.anchor(name, name.startsWith('compaction/') ? { summary: 's', cursorOrderSeq: 2 } : { summary: 's' }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Op>(
      (t) => void t.system('be brief'),
      (t) => void t.event('provider/attempt', { usage: { inputTokens: 3 } }),
      (t) => void t.event('session/title', { title: 'x' }),
    ),
  },
);

export const randomTape = (maxLength = 60): fc.Arbitrary<Entry[]> =>
  fc.array(op, { maxLength }).map((ops) => {
    const t = new TapeBuilder();
    t.anchor('session/start', { sessionId: 's1' });
    for (const o of ops) o(t);
    return t.entries;
  });

/** Sorted, distinct cut points inside [1, n). */
export const splitPoints = (n: number): fc.Arbitrary<number[]> =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, n - 1) }), { maxLength: 8 }).map((xs) => xs.filter((x) => x < n).sort((a, b) => a - b));
