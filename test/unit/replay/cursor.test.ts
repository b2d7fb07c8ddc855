import * as assert from 'assert';
import fc from 'fast-check';
import { readerOf } from '../../../src/store/lineage';
import { ReplayCursor } from '../../../src/replay/cursor';
import { buildContext, resolveSelector } from '../../../src/tape/context';
import type { Entry } from '../../../src/tape/entry';
import { foldAll, foldRowOf, type EffectiveView } from '../../../src/tape/fold';
import { builtinProjections } from '../../../src/tape/projections';
import { projectionView, runProjection } from '../../../src/tape/projections/projection';
import { randomTape } from '../tape/randomTape';
import { TapeBuilder } from '../tape/tapeBuilder';
import { CHILD, FORK, linkedTape, PARENT, storeOf } from './replayTapes';

/** A view as plain data, maps included, so two views compare with deepStrictEqual. */
const plain = (v: EffectiveView) => ({
  headEntryId: v.headEntryId,
  messages: [...v.messages],
  toolCalls: [...v.toolCalls],
  toolResults: [...v.toolResults],
  toolFacts: [...v.toolFacts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, f]) => [id, [...f.calls], [...f.results].sort(([a], [b]) => a.localeCompare(b))]),
  anchors: [...v.anchors],
  systemPromptEntryId: v.systemPromptEntryId,
});

const prefixView = (entries: readonly Entry[], at: number, includePending: boolean): EffectiveView =>
  foldAll(entries.slice(0, at).map(foldRowOf), { includePending });

type Move = { op: 'next' } | { op: 'back' } | { op: 'continue' } | { op: 'reverse' } | { op: 'restart' };
const move: fc.Arbitrary<Move> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Move>({ op: 'next' }) },
  { weight: 4, arbitrary: fc.constant<Move>({ op: 'back' }) },
  { weight: 1, arbitrary: fc.constant<Move>({ op: 'continue' }) },
  { weight: 1, arbitrary: fc.constant<Move>({ op: 'reverse' }) },
  { weight: 1, arbitrary: fc.constant<Move>({ op: 'restart' }) },
);

describe('replay cursor', () => {
  it('shows at every position the fold of the prefix, the context built from it and the projections of it, however it got there', async () => {
    await fc.assert(
      fc.asyncProperty(
        randomTape(40),
        fc.array(move, { maxLength: 60 }),
        fc.constantFrom('anchor', 'tool_result', 'message/retracted', 'handoff/*'),
        async (entries, moves, pattern) => {
          const store = await storeOf(entries);
          try {
            const cursor = new ReplayCursor(readerOf(store), 's1');
            cursor.breakpoints.setPatterns([pattern]);
            for (const m of moves) {
              if (m.op === 'next') cursor.next();
              else if (m.op === 'back') cursor.back();
              else if (m.op === 'continue') cursor.continue();
              else if (m.op === 'reverse') cursor.reverseContinue();
              else cursor.restart();
              const p = cursor.stack[0].position;
              assert.deepStrictEqual(plain(cursor.viewAt(0)), plain(prefixView(entries, p, true)), `view at ${p}`);
              const final = prefixView(entries, p, false);
              const expected = buildContext(
                { view: final, anchorEntryId: resolveSelector(final.anchors, { kind: 'last' }).anchorEntryId },
                (id) => entries[id - 1],
              );
              assert.deepStrictEqual(cursor.contextAt(0), expected, `context at ${p}`);
            }
            const p = cursor.stack[0].position;
            const views = cursor.projectionsAt(0);
            for (const proj of builtinProjections()) {
              assert.deepStrictEqual(views[proj.key], projectionView(proj, runProjection(proj, entries.slice(0, p))), `projection ${proj.key} at ${p}`);
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('jumps far back by refolding the prefix, and stays equal to the fold', async () => {
    const entries: Entry[] = [];
    const t = new TapeBuilder('long');
    t.anchor('session/start', {});
    for (let i = 0; t.entries.length < 9000; i++) {
      t.user(`u${i}`, `q${i}`);
      t.assistant(`a${i}`, 'pending', { status: 'pending' });
      t.assistant(`a${i}`, `answer ${i}`);
      t.call(`a${i}`, `c${i}`, 'read_file', { path: `${i}` });
      t.result(`a${i}`, `c${i}`, 'read_file', 'ok');
      if (i % 7 === 6) t.retract(`u${i - 3}`);
      if (i % 300 === 299) t.anchor('compaction/auto', { summary: 's', cursorOrderSeq: t.entries.length - 10 });
    }
    entries.push(...t.entries);
    const store = await storeOf(entries);
    try {
      const cursor = new ReplayCursor(readerOf(store), 'long');
      cursor.continue();
      assert.strictEqual(cursor.stack[0].position, entries.length);
      cursor.viewAt(0);
      cursor.restart();
      for (let i = 0; i < 20; i++) cursor.next();
      assert.deepStrictEqual(plain(cursor.viewAt(0)), plain(prefixView(entries, 21, true)));
      for (const to of [8000, 100, 7000, 6990]) {
        cursor.breakpoints.setLines('long', [to]);
        const stop = to > cursor.stack[0].position ? cursor.continue() : cursor.reverseContinue();
        assert.strictEqual(stop.reason, 'breakpoint');
        assert.deepStrictEqual(plain(cursor.viewAt(0)), plain(prefixView(entries, to, true)), `view at ${to}`);
      }
    } finally {
      await store.close();
    }
  });

  it('steps into a subagent up to its frozen head and into a merged fork, and back out to the entry it came from', async () => {
    const store = await storeOf(linkedTape());
    try {
      const cursor = new ReplayCursor(readerOf(store), PARENT);
      const where = () => cursor.stack.map((f) => `${f.sessionId}#${f.position}`).join(' > ');
      for (let i = 0; i < 5; i++) cursor.stepIn();
      assert.strictEqual(where(), `${PARENT}#6`, 'step in elsewhere is a step');
      assert.deepStrictEqual(cursor.stepIn(), { reason: 'step', description: `into subagent ${CHILD}` });
      assert.strictEqual(where(), `${PARENT}#6 > ${CHILD}#1`);
      const { sessionId, head, position, enteredFrom } = cursor.stack[1];
      assert.deepStrictEqual({ sessionId, head, position, enteredFrom }, { sessionId: CHILD, head: 3, position: 1, enteredFrom: 6 });
      cursor.next();
      cursor.next();
      assert.deepStrictEqual(
        cursor.viewAt(1).messages.map((m) => m.entryId),
        [2, 3],
      );
      assert.strictEqual(cursor.next().reason, 'step');
      assert.strictEqual(where(), `${PARENT}#6`, 'past the frozen head, back to the link');
      cursor.stepIn();
      assert.strictEqual(cursor.back().reason, 'step');
      assert.strictEqual(where(), `${PARENT}#6`, 'before the child start, back to the link');
      cursor.stepIn();
      cursor.next();
      assert.match(cursor.stepOut().description, /out of .*back at entry 6/);
      assert.strictEqual(where(), `${PARENT}#6`);

      cursor.next();
      cursor.next();
      cursor.next();
      assert.strictEqual(where(), `${PARENT}#9`);
      assert.deepStrictEqual(cursor.stepIn(), { reason: 'step', description: `into fork ${FORK}` });
      assert.strictEqual(where(), `${PARENT}#9 > ${FORK}#5`, "at the fork's own fork/start, after the parent's entries it reads through");
      assert.strictEqual(cursor.entryAt(1).name, 'fork/start');
      cursor.next();
      assert.deepStrictEqual(
        cursor.viewAt(1).messages.map((m) => m.entryId),
        [2, 3, 6],
        "the fork's view: the parent's up to the fork point, then its own",
      );
      assert.strictEqual(cursor.next().reason, 'step');
      assert.strictEqual(where(), `${PARENT}#9`);
      assert.strictEqual(cursor.next().reason, 'end');
      assert.strictEqual(where(), `${PARENT}#9`);
    } finally {
      await store.close();
    }
  });

  it('runs to line and function breakpoints both ways, and to the ends of the session without one', async () => {
    const store = await storeOf(linkedTape());
    try {
      const cursor = new ReplayCursor(readerOf(store), PARENT);
      cursor.breakpoints.setPatterns(['anchor']);
      assert.deepStrictEqual(cursor.continue(), { reason: 'function breakpoint', description: 'anchor: anchor handoff/plan' });
      assert.strictEqual(cursor.stack[0].position, 4);
      assert.deepStrictEqual(
        cursor.viewAt(0).messages.map((m) => m.entryId),
        [2, 3],
      );
      // Continue runs through the subagent linked at 6, as through a call: its session/start is an anchor too.
      assert.strictEqual(cursor.continue().description, 'anchor: anchor session/start');
      assert.deepStrictEqual(
        cursor.stack.map((f) => `${f.sessionId}#${f.position}`),
        [`${PARENT}#6`, `${CHILD}#1`],
      );
      assert.strictEqual(cursor.continue().reason, 'end');
      assert.deepStrictEqual(
        cursor.stack.map((f) => f.position),
        [9],
      );
      cursor.breakpoints.setPatterns([]);
      cursor.breakpoints.setLines(CHILD, [3]);
      cursor.restart();
      assert.deepStrictEqual(cursor.continue(), { reason: 'breakpoint', description: 'breakpoint on entry 3' });
      assert.deepStrictEqual(
        cursor.stack.map((f) => `${f.sessionId}#${f.position}`),
        [`${PARENT}#6`, `${CHILD}#3`],
      );
      assert.strictEqual(cursor.continue().reason, 'end', 'out of the child, nothing more in the parent');
      assert.deepStrictEqual(cursor.reverseContinue(), { reason: 'breakpoint', description: 'breakpoint on entry 3' }, 'back into the child from its end');
      cursor.stepOut();
      assert.strictEqual(cursor.continue().reason, 'end', 'after stepping out, continue goes on past the link, not into the child again');
      cursor.breakpoints.setLines(CHILD, []);
      cursor.breakpoints.setPatterns(['anchor']);
      cursor.breakpoints.setLines(PARENT, [7]);
      assert.deepStrictEqual(cursor.reverseContinue(), { reason: 'breakpoint', description: 'breakpoint on entry 7' });
      assert.strictEqual(cursor.reverseContinue().description, 'anchor: anchor session/start', "the child's, entered from its end");
      assert.strictEqual(cursor.stack.length, 2);
      assert.strictEqual(cursor.reverseContinue().description, 'anchor: anchor handoff/plan');
      assert.strictEqual(cursor.reverseContinue().description, 'anchor: anchor session/start');
      assert.strictEqual(cursor.reverseContinue().reason, 'entry');
      assert.strictEqual(cursor.stack[0].position, 1);
      assert.deepStrictEqual(
        cursor.breakpoints.setPatterns(['handoff/*', 'subagent/linked', 'a*b', ' ']).map((p) => p === null),
        [true, true, false, false],
      );
      assert.strictEqual(cursor.continue().description, 'handoff/*: anchor handoff/plan');
      assert.strictEqual(cursor.continue().description, 'subagent/linked: event subagent/linked');
      cursor.stepIn();
      cursor.breakpoints.setLines(CHILD, [3]);
      assert.strictEqual(cursor.continue().description, 'breakpoint on entry 3', 'line breakpoints are per session');
      assert.strictEqual(cursor.stack.length, 2);
      assert.strictEqual(cursor.continue().reason, 'breakpoint', 'past the child head, on in the parent');
      assert.deepStrictEqual(
        cursor.stack.map((f) => f.position),
        [7],
      );
      assert.deepStrictEqual(cursor.restart(), { reason: 'entry', description: `start of session ${PARENT}` });
    } finally {
      await store.close();
    }
  });

  it('refuses a session the tape does not have, and reads no manifest where there is none', async () => {
    const store = await storeOf(linkedTape());
    try {
      assert.throws(() => new ReplayCursor(readerOf(store), 'nope'), /the tape has no session "nope"/);
      const cursor = new ReplayCursor(readerOf(store), PARENT);
      assert.strictEqual(cursor.manifestAt(0), null);
      assert.throws(() => cursor.viewAt(1), /there is no frame 1/);
    } finally {
      await store.close();
    }
  });
});
