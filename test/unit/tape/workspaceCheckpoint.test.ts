import { CHECKPOINTS_OFF, WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { validateEntry, type Entry, type NewEntry } from '../../../src/tape/entry';
import { turnEndEntry, turnStartEntry } from '../../../src/tape/turnEntries';
import {
  checkpointData,
  checkpointEntry,
  checkpointOf,
  checkpointsOffEntry,
  checkpointsOffOf,
  restoredData,
  restoredEntry,
  restoredOf,
  restoreFailedEntry,
  restoreFailedOf,
  turnChanges,
  workspaceStateAt,
  workspaceStates,
  type CheckpointData,
  type CheckpointReason,
  type RestoredData,
} from '../../../src/tape/workspaceCheckpoint';

const SESSION = 's1';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(64);

function checkpoint(checkpointId: string, reason: CheckpointReason, over: Partial<CheckpointData> = {}): CheckpointData {
  return {
    checkpointId,
    previousId: null,
    reason,
    fileCount: 3,
    files: [],
    filesOmitted: 0,
    skipped: [],
    skippedOmitted: 0,
    durationMs: 4,
    ...over,
  };
}

function restored(fromCheckpointId: string, toCheckpointId: string, atEntryId: number): RestoredData {
  return { fromCheckpointId, toCheckpointId, atEntryId, changed: ['a.txt'], created: [], removed: [], omitted: 0 };
}

/** The entries as the store would number them: dense ids from 1, validated. */
function tapeOf(news: NewEntry[]): Entry[] {
  return news.map((e, i) =>
    validateEntry({
      sessionId: SESSION,
      entryId: i + 1,
      kind: e.kind,
      name: e.name,
      provenanceKey: e.provenanceKey ?? null,
      payload: e.payload,
      meta: e.meta ?? {},
      createdAt: 1_700_000_000_000 + i,
    }),
  );
}

const start = (turnId: string) => turnStartEntry({ sessionId: SESSION, turnId }, 8);
const end = (turnId: string) => turnEndEntry({ sessionId: SESSION, turnId }, 'answer', 1);
const cp = (id: string, reason: CheckpointReason, turnId?: string, over: Partial<CheckpointData> = {}) =>
  checkpointEntry(SESSION, checkpoint(id, reason, { ...(turnId !== undefined ? { turnId } : {}), ...over }));
const note = (text: string): NewEntry => ({ kind: 'event', name: 'note', payload: { name: 'note', data: { text } } });

describe('workspace checkpoints on the tape', () => {
  describe('the folder a checkpoint is of', () => {
    const ws = { key: '0123456789abcdef', root: '/home/u/project' };
    it('is recorded by checkpoints and restores and carried by the states; a malformed one is refused', () => {
      const tape = tapeOf([
        cp(A, 'turn_end', 't1', { workspace: ws }),
        restoredEntry(SESSION, { ...restored(B, C, 2), workspace: ws }),
        cp(B, 'turn_end', 't2'),
      ]);
      assert.deepStrictEqual(
        workspaceStates(tape).map((s) => s.workspace),
        [ws, ws, undefined],
      );
      for (const bad of [{ key: 'ABCDEF0123456789', root: '/r' }, { key: '0123', root: '/r' }, { key: ws.key, root: '' }, { root: '/r' }])
        assert.throws(() => cp(A, 'turn_end', 't1', { workspace: bad as typeof ws }), JSON.stringify(bad));
    });

    it('workspace/restore-failed: validated, read back, and each failed attempt its own event', () => {
      const failed = (failedAt: number) =>
        restoreFailedEntry(SESSION, {
          fromCheckpointId: A,
          toCheckpointId: B,
          atEntryId: 3,
          workspace: ws,
          message: 'the restore failed part way',
          rolledBack: true,
          differing: [],
          differingOmitted: 0,
          failedAt,
        });
      const [one, two] = tapeOf([failed(1), failed(2)]);
      assert.notStrictEqual(one.provenanceKey, two.provenanceKey);
      assert.deepStrictEqual(restoreFailedOf(one)?.rolledBack, true);
      assert.strictEqual(restoreFailedOf(tapeOf([cp(A, 'turn_end', 't1')])[0]), null);
      assert.throws(() => restoreFailedEntry(SESSION, { ...restoreFailedOf(one)!, workspace: undefined as unknown as typeof ws }));
      assert.deepStrictEqual(workspaceStates([one, two]), [], 'a failed restore stands for no state');
    });
  });

  describe('schemas', () => {
    it('refuse a snapshot id that is not 40 or 64 lowercase hex digits, in every id field', () => {
      for (const bad of ['', 'abc', 'A'.repeat(40), 'g'.repeat(40), 'a'.repeat(39), 'a'.repeat(41), 'a'.repeat(63), `${'a'.repeat(39)}\n`, 'HEAD', '../a']) {
        assert.throws(() => checkpointEntry(SESSION, checkpoint(bad, 'turn_start')), `checkpointId ${JSON.stringify(bad)}`);
        assert.throws(() => checkpointEntry(SESSION, checkpoint(A, 'turn_end', { previousId: bad })), `previousId ${JSON.stringify(bad)}`);
        assert.throws(() => restoredEntry(SESSION, restored(bad, A, 3)), `fromCheckpointId ${JSON.stringify(bad)}`);
        assert.throws(() => restoredEntry(SESSION, restored(A, bad, 3)), `toCheckpointId ${JSON.stringify(bad)}`);
      }
      assert.strictEqual(checkpointData.safeParse(checkpoint(A, 'turn_start')).success, true);
      assert.strictEqual(checkpointData.safeParse(checkpoint(D, 'turn_start', { previousId: A })).success, true, 'SHA-256 ids are ids');
      assert.strictEqual(restoredData.safeParse(restored(A, D, 1)).success, true);
    });

    it('refuse an unknown reason, change or skip reason, negative counts, an empty path and a restore at entry 0', () => {
      const bad: unknown[] = [
        { ...checkpoint(A, 'turn_start'), reason: 'whenever' },
        { ...checkpoint(A, 'turn_start'), fileCount: -1 },
        { ...checkpoint(A, 'turn_start'), fileCount: 1.5 },
        { ...checkpoint(A, 'turn_start'), filesOmitted: -1 },
        { ...checkpoint(A, 'turn_start'), turnId: '' },
        { ...checkpoint(A, 'turn_start'), files: [{ path: 'a', change: 'renamed', added: 1, removed: 0 }] },
        { ...checkpoint(A, 'turn_start'), files: [{ path: '', change: 'added', added: 1, removed: 0 }] },
        { ...checkpoint(A, 'turn_start'), files: [{ path: 'a', change: 'added', added: -1, removed: 0 }] },
        { ...checkpoint(A, 'turn_start'), skipped: [{ path: 'a', reason: 'i_felt_like_it' }] },
        { ...checkpoint(A, 'turn_start'), durationMs: -1 },
      ];
      for (const data of bad) assert.strictEqual(checkpointData.safeParse(data).success, false, JSON.stringify(data));
      assert.strictEqual(restoredData.safeParse({ ...restored(A, B, 1), atEntryId: 0 }).success, false);
      assert.strictEqual(restoredData.safeParse({ ...restored(A, B, 1), omitted: -1 }).success, false);
      assert.throws(() => checkpointsOffEntry(SESSION, { reason: 'bored' as 'failed', message: 'x' }));
      // A binary file's counts are null, and that is valid.
      const binary = checkpoint(A, 'turn_end', { files: [{ path: 'logo.png', change: 'modified', added: null, removed: null }] });
      assert.strictEqual(checkpointData.safeParse(binary).success, true);
    });

    it('the events read back as written; another entry or a malformed one reads as null', () => {
      const data = checkpoint(A, 'turn_end', {
        previousId: B,
        turnId: 't1',
        files: [{ path: 'src/a.ts', change: 'modified', added: 2, removed: 1 }],
        skipped: [{ path: 'big.bin', reason: 'too_large', size: 3_000_000 }],
      });
      const [c, r, off, other] = tapeOf([
        checkpointEntry(SESSION, data),
        restoredEntry(SESSION, restored(C, A, 1)),
        checkpointsOffEntry(SESSION, { reason: 'git_missing', message: 'no git' }, 't2'),
        note('x'),
      ]);
      assert.deepStrictEqual([c.kind, c.name, r.name, off.name], ['event', WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED, CHECKPOINTS_OFF]);
      assert.deepStrictEqual(checkpointOf(c), data);
      assert.strictEqual(c.meta.turnId, 't1');
      assert.deepStrictEqual(restoredOf(r), restored(C, A, 1));
      assert.deepStrictEqual(checkpointsOffOf(off), { reason: 'git_missing', message: 'no git' });
      assert.strictEqual(off.meta.turnId, 't2');
      for (const read of [checkpointOf, restoredOf, checkpointsOffOf]) assert.strictEqual(read(other), null);
      assert.strictEqual(checkpointOf(r), null);
      const [malformed] = tapeOf([{ kind: 'event', name: WORKSPACE_CHECKPOINT, payload: { name: WORKSPACE_CHECKPOINT, data: { checkpointId: 'nope' } } }]);
      assert.strictEqual(checkpointOf(malformed), null);
    });

    it('keys: one per snapshot, reason and turn; one checkpoints-off per session', () => {
      const key = (e: NewEntry) => e.provenanceKey;
      assert.strictEqual(key(cp(A, 'turn_start', 't1')), key(cp(A, 'turn_start', 't1', { durationMs: 99 })), 'a retried turn records it once');
      const distinct = [cp(A, 'turn_start', 't1'), cp(A, 'turn_end', 't1'), cp(A, 'turn_start', 't2'), cp(B, 'turn_start', 't1'), cp(A, 'before_restore')];
      assert.strictEqual(new Set(distinct.map(key)).size, distinct.length);
      assert.strictEqual(
        key(checkpointsOffEntry(SESSION, { reason: 'git_missing', message: 'a' }, 't1')),
        key(checkpointsOffEntry(SESSION, { reason: 'too_large', message: 'b' }, 't2')),
      );
      assert.notStrictEqual(key(restoredEntry(SESSION, restored(A, B, 3))), key(restoredEntry(SESSION, restored(A, B, 4))));
    });
  });

  describe('workspaceStateAt', () => {
    it("a turn_start checkpoint stands for the workspace from its turn's turn/start on, a turn_end one from its own entry", () => {
      const tape = tapeOf([
        note('session'), // 1
        start('t1'), // 2
        note('the model reads'), // 3
        cp(A, 'turn_start', 't1'), // 4
        note('the edit'), // 5
        cp(B, 'turn_end', 't1', { previousId: A }), // 6
        end('t1'), // 7
      ]);
      assert.deepStrictEqual(workspaceStates(tape), [
        { checkpointId: A, fromEntryId: 2, entryId: 4 },
        { checkpointId: B, fromEntryId: 6, entryId: 6 },
      ]);
      assert.deepStrictEqual(
        [1, 2, 3, 4, 5, 6, 7].map((at) => workspaceStateAt(tape, at)?.checkpointId ?? null),
        [null, A, A, A, A, B, B],
      );
      assert.deepStrictEqual(workspaceStateAt(tape, 2), { checkpointId: A, fromEntryId: 2, entryId: 4 });
    });

    it('nothing before the first checkpoint, nor in a view without any', () => {
      const tape = tapeOf([note('1'), note('2'), start('t1'), cp(A, 'turn_end', 't1'), end('t1')]);
      assert.strictEqual(workspaceStateAt(tape, 1), null);
      assert.strictEqual(workspaceStateAt(tape, 3), null, 'a turn_end checkpoint does not stand for its turn before it');
      assert.strictEqual(workspaceStateAt(tape, 4)?.checkpointId, A);
      assert.strictEqual(workspaceStateAt(tapeOf([note('1'), start('t1'), end('t1')]), 3), null);
      assert.strictEqual(workspaceStateAt([], 1), null);
    });

    it('a turn_start checkpoint whose turn/start is not in the view (or that names no turn) stands from its own entry', () => {
      const tape = tapeOf([note('1'), start('t1'), note('3'), cp(A, 'turn_start', 'elsewhere'), note('5'), cp(B, 'turn_start')]);
      assert.deepStrictEqual(
        workspaceStates(tape).map((s) => [s.checkpointId, s.fromEntryId]),
        [
          [A, 4],
          [B, 6],
        ],
      );
      assert.strictEqual(workspaceStateAt(tape, 3), null);
    });

    it('a restore stands from its own entry for its target; its before_restore checkpoint just before it for the state it undid', () => {
      const tape = tapeOf([
        start('t1'), // 1
        cp(A, 'turn_start', 't1'), // 2
        cp(B, 'turn_end', 't1', { previousId: A }), // 3
        end('t1'), // 4
        cp(B, 'before_restore'), // 5
        restoredEntry(SESSION, restored(B, A, 1)), // 6
        note('later'), // 7
      ]);
      assert.deepStrictEqual(
        [1, 2, 3, 4, 5, 6, 7].map((at) => workspaceStateAt(tape, at)),
        [
          { checkpointId: A, fromEntryId: 1, entryId: 2 },
          { checkpointId: A, fromEntryId: 1, entryId: 2 },
          { checkpointId: B, fromEntryId: 3, entryId: 3 },
          { checkpointId: B, fromEntryId: 3, entryId: 3 },
          { checkpointId: B, fromEntryId: 5, entryId: 5 },
          { checkpointId: A, fromEntryId: 6, entryId: 6 },
          { checkpointId: A, fromEntryId: 6, entryId: 6 },
        ],
      );
    });

    it('a later turn that changed nothing before its first edit: its turn/start is the new checkpoint, the previous turn_end stands before it', () => {
      const tape = tapeOf([
        start('t1'), // 1
        cp(A, 'turn_start', 't1'), // 2
        cp(B, 'turn_end', 't1', { previousId: A }), // 3
        end('t1'), // 4
        start('t2'), // 5 (only reads)
        end('t2'), // 6
        start('t3'), // 7
        note('t3 reads first'), // 8
        cp(C, 'turn_start', 't3'), // 9 (the user changed files between t2 and t3)
        end('t3'), // 10
      ]);
      assert.deepStrictEqual(
        [3, 5, 6, 7, 8, 9, 10].map((at) => workspaceStateAt(tape, at)?.checkpointId),
        [B, B, B, C, C, C, C],
      );
    });

    it('ties: of two states from the same entry, the one recorded later wins', () => {
      // A turn recorded twice (say, merged back from a fork): both turn_start checkpoints stand from the same turn/start.
      const tape = tapeOf([note('1'), start('t1'), cp(A, 'turn_start', 't1'), cp(B, 'turn_start', 't1'), end('t1')]);
      const states = workspaceStates(tape);
      assert.deepStrictEqual(
        states.map((s) => s.fromEntryId),
        [2, 2],
      );
      assert.deepStrictEqual(workspaceStateAt(tape, 2), { checkpointId: B, fromEntryId: 2, entryId: 4 });
      assert.deepStrictEqual(workspaceStateAt(tape, 5), { checkpointId: B, fromEntryId: 2, entryId: 4 });
    });

    it('an entry beyond the view is at its end; a state recorded after the entry asked for can still stand for it', () => {
      const tape = tapeOf([start('t1'), note('2'), cp(A, 'turn_start', 't1'), end('t1')]);
      assert.strictEqual(workspaceStateAt(tape, 1)?.checkpointId, A, 'the turn_start checkpoint at entry 3 stands for entry 1');
      assert.strictEqual(workspaceStateAt(tape, 1_000)?.checkpointId, A);
      // A view cut at the turn's start does not see the checkpoint recorded later: callers read the whole view.
      assert.strictEqual(workspaceStateAt(tape.slice(0, 1), 1), null);
    });
  });

  describe('turnChanges', () => {
    it("each turn with both checkpoints: before and after ids, the turn_end's files and its entry", () => {
      const files = [
        { path: 'a.txt', change: 'modified' as const, added: 1, removed: 1 },
        { path: 'new.txt', change: 'added' as const, added: 2, removed: 0 },
        { path: 'gone.txt', change: 'deleted' as const, added: 0, removed: 3 },
        { path: 'logo.png', change: 'modified' as const, added: null, removed: null },
      ];
      const tape = tapeOf([
        start('t1'), // 1
        cp(A, 'turn_start', 't1'), // 2
        cp(B, 'turn_end', 't1', { previousId: A, files, filesOmitted: 7 }), // 3
        end('t1'), // 4
        start('t2'), // 5
        cp(B, 'turn_start', 't2'), // 6
        cp(C, 'turn_end', 't2', { previousId: B, files: files.slice(0, 1) }), // 7
        end('t2'), // 8
        start('t3'), // 9: reads only
        end('t3'), // 10
      ]);
      const turns = turnChanges(tape);
      assert.deepStrictEqual([...turns.keys()], ['t1', 't2']);
      assert.deepStrictEqual(turns.get('t1'), { turnId: 't1', beforeId: A, afterId: B, entryId: 3, files, filesOmitted: 7 });
      assert.deepStrictEqual(turns.get('t2'), { turnId: 't2', beforeId: B, afterId: C, entryId: 7, files: files.slice(0, 1), filesOmitted: 0 });
    });

    it('a turn_end without its turn_start compares with its previousId; with neither it is left out; restores and other reasons are not turns', () => {
      const tape = tapeOf([
        start('t1'),
        cp(B, 'turn_end', 't1', { previousId: A }),
        end('t1'),
        start('t2'),
        cp(C, 'turn_end', 't2'),
        end('t2'),
        cp(C, 'before_restore'),
        restoredEntry(SESSION, restored(C, A, 1)),
        cp(A, 'turn_start'),
        cp(A, 'turn_end'),
      ]);
      const turns = turnChanges(tape);
      assert.deepStrictEqual([...turns.keys()], ['t1']);
      assert.deepStrictEqual([turns.get('t1')?.beforeId, turns.get('t1')?.afterId], [A, B]);
      assert.strictEqual(turnChanges([]).size, 0);
    });
  });
});
