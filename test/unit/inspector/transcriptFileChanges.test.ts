import * as assert from 'assert';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import { Transcript } from '../../../src/inspector/transcript';
import { hostToInspector, transcriptItem, type HostToInspector, type TranscriptItem } from '../../../src/protocol/inspector';
import { forkSession } from '../../../src/store/forks';
import { readerOf } from '../../../src/store/lineage';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { messageEntry, toolCallEntry, toolResultEntry, turnEndEntry, turnStartEntry, type TurnRef } from '../../../src/tape/turnEntries';
import { checkpointEntry, restoredEntry, type FileChange } from '../../../src/tape/workspaceCheckpoint';
import { inspectorSource } from './inspectorSource';

const S = 's';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(40);
const HOSTILE = '<img src=x onerror=alert(1)>.ts';
const FILES: FileChange[] = [
  { path: 'src/a.ts', change: 'modified', added: 10, removed: 4 },
  { path: HOSTILE, change: 'added', added: 2, removed: 0 },
  { path: 'logo.png', change: 'deleted', added: null, removed: null },
];

const checkpoint = (
  sessionId: string,
  turnId: string,
  reason: 'turn_start' | 'turn_end',
  checkpointId: string,
  previousId: string | null,
  files: FileChange[],
  filesOmitted = 0,
) =>
  checkpointEntry(sessionId, { checkpointId, previousId, reason, turnId, fileCount: 12, files, filesOmitted, skipped: [], skippedOmitted: 0, durationMs: 3 });

/** A turn that only talks, as the loop writes it: turn/start, the prompt, the answer, turn/end. */
function talkingTurn(t: TurnRef, seq: number): NewEntry[] {
  return [
    turnStartEntry(t, 8),
    messageEntry(t, { messageId: `${t.turnId}/user`, role: 'user', orderSeq: seq, content: 'what is here?', status: 'sent' }),
    messageEntry(t, { messageId: `${t.turnId}/assistant/1`, role: 'assistant', orderSeq: seq + 1, content: 'Two files.', status: 'sent' }),
    turnEndEntry(t, 'answer', 1),
  ];
}

/**
 * A turn that edits, in the loop's order: turn/start, the prompt, an answer with an apply_edit call,
 * the `turn_start` checkpoint just before the call runs, its result, the final answer, the
 * `turn_end` checkpoint, turn/end (9 entries).
 */
function editingTurn(
  t: TurnRef,
  seq: number,
  ids: { previous: string | null; before: string; after: string },
  files: FileChange[],
  filesOmitted = 0,
): NewEntry[] {
  const asking = `${t.turnId}/assistant/1`;
  return [
    turnStartEntry(t, 8),
    messageEntry(t, { messageId: `${t.turnId}/user`, role: 'user', orderSeq: seq, content: 'fix it', status: 'sent' }),
    messageEntry(t, { messageId: asking, role: 'assistant', orderSeq: seq + 1, content: 'Editing.', status: 'sent' }),
    toolCallEntry(t, asking, 'c1', 'apply_edit', { path: 'src/a.ts' }),
    checkpoint(t.sessionId, t.turnId, 'turn_start', ids.before, ids.previous, []),
    toolResultEntry(t, asking, 'c1', 'apply_edit', { status: 'ok', output: 'edited' }),
    messageEntry(t, { messageId: `${t.turnId}/assistant/2`, role: 'assistant', orderSeq: seq + 2, content: 'Done.', status: 'sent' }),
    checkpoint(t.sessionId, t.turnId, 'turn_end', ids.after, ids.before, files, filesOmitted),
    turnEndEntry(t, 'answer', 2),
  ];
}

const all = (t: Transcript, sessionId: string) => t.page(sessionId, 0, Number.MAX_SAFE_INTEGER);
const brief = (items: TranscriptItem[]) => items.map((i) => [i.messageId, i.entryId, i.fileChanges ?? null]);

/**
 * 1 session/start; t1 talks (2-5); t2 edits (6-14: turn/start 6, prompt 7, answer 8 with its call
 * 9, checkpoint A 10, result 11, final answer 12, checkpoint B 13, turn/end 14).
 */
async function editedSession(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  await store.appendMany(S, [
    ...talkingTurn({ sessionId: S, turnId: 't1' }, 1),
    ...editingTurn({ sessionId: S, turnId: 't2' }, 3, { previous: null, before: A, after: B }, FILES),
  ]);
  return store;
}

describe('inspector transcript: the workspace checkpoints', () => {
  it("the message that ends a turn carries the turn's file changes; checkpoints stand from the turn's start", async () => {
    const store = await editedSession();
    const page = all(new Transcript(store), S);
    for (const i of page.items) transcriptItem.parse(i);
    assert.deepStrictEqual(brief(page.items), [
      ['t1/user', 3, null],
      ['t1/assistant/1', 4, null],
      ['t2/user', 7, null],
      ['t2/assistant/1', 8, null],
      ['t2/assistant/2', 12, { beforeId: A, afterId: B, entryId: 13, files: FILES, filesOmitted: 0 }],
    ]);
    assert.strictEqual(page.checkpointsFrom, 6, "t2's turn/start: its turn_start checkpoint stands for the workspace from there");
  });

  it('a session without checkpoints has no changes and no checkpointsFrom', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(S, talkingTurn({ sessionId: S, turnId: 't1' }, 1));
    const page = all(new Transcript(store), S);
    assert.deepStrictEqual([page.checkpointsFrom, page.items.map((i) => i.fileChanges)], [undefined, [undefined, undefined]]);
    assert.ok(!('checkpointsFrom' in page));
  });

  it('a turn whose checkpoints differ in nothing shows no changes; one whose files are all beyond the list shows the count', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(S, [
      ...editingTurn({ sessionId: S, turnId: 't1' }, 1, { previous: null, before: A, after: A }, []),
      ...editingTurn({ sessionId: S, turnId: 't2' }, 4, { previous: A, before: A, after: C }, [], 1500),
    ]);
    const items = all(new Transcript(store), S).items;
    assert.deepStrictEqual(
      items.filter((i) => i.fileChanges !== undefined).map((i) => [i.messageId, i.fileChanges]),
      [['t2/assistant/2', { beforeId: A, afterId: C, entryId: 18, files: [], filesOmitted: 1500 }]],
    );
  });

  it('as the turn is appended: checkpointsFrom once its turn_start checkpoint is there, the changes once its turn_end one is', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(S, talkingTurn({ sessionId: S, turnId: 't1' }, 1));
    const t = new Transcript(store);
    t.lastPage(S);
    const turn = editingTurn({ sessionId: S, turnId: 't2' }, 3, { previous: null, before: A, after: B }, FILES);
    await store.appendMany(S, turn.slice(0, 4));
    assert.deepStrictEqual(brief(t.changedSince(S, 5)), [
      ['t2/user', 7, null],
      ['t2/assistant/1', 8, null],
    ]);
    assert.strictEqual(t.checkpointsFrom(S), null, 'no checkpoint yet');
    await store.appendMany(S, turn.slice(4, 7));
    assert.deepStrictEqual(brief(t.changedSince(S, 9)), [
      ['t2/assistant/1', 8, null],
      ['t2/assistant/2', 12, null],
    ]);
    assert.strictEqual(t.checkpointsFrom(S), 6);
    await store.appendMany(S, turn.slice(7));
    const changed = t.changedSince(S, 12);
    assert.deepStrictEqual(brief(changed), [['t2/assistant/2', 12, { beforeId: A, afterId: B, entryId: 13, files: FILES, filesOmitted: 0 }]]);
    const fresh = all(new Transcript(store), S);
    assert.deepStrictEqual(changed, [fresh.items[4]], 'the item as a transcript read afresh has it');
    assert.deepStrictEqual(all(t, S), fresh);
  });

  it("a restore changes no turn's changes; a later turn compares with the restored state", async () => {
    const store = await editedSession();
    await store.append(
      S,
      checkpointEntry(S, {
        checkpointId: C,
        previousId: B,
        reason: 'before_restore',
        fileCount: 12,
        files: [],
        filesOmitted: 0,
        skipped: [],
        skippedOmitted: 0,
        durationMs: 2,
      }),
    );
    await store.append(
      S,
      restoredEntry(S, { fromCheckpointId: C, toCheckpointId: A, atEntryId: 7, changed: ['src/a.ts'], created: ['logo.png'], removed: [HOSTILE], omitted: 0 }),
    );
    const t = new Transcript(store);
    const head = store.headEntryId(S);
    await store.appendMany(S, editingTurn({ sessionId: S, turnId: 't3' }, 6, { previous: A, before: A, after: D }, [FILES[0]]));
    const page = all(t, S);
    assert.deepStrictEqual(
      page.items.filter((i) => i.fileChanges !== undefined).map((i) => [i.messageId, i.fileChanges?.beforeId, i.fileChanges?.afterId, i.fileChanges?.entryId]),
      [
        ['t2/assistant/2', A, B, 13],
        ['t3/assistant/2', A, D, head + 8],
      ],
    );
    assert.strictEqual(page.checkpointsFrom, 6);
  });

  it("a fork shows its parent's turn changes at the parent's positions, and its own at its view's", async () => {
    const store = await editedSession();
    const { forkSessionId: F } = await forkSession(store, S, { forkId: 'f1' });
    // The fork's view: the parent's 1-14, fork/start at 15, its own turn from 16 (its checkpoint B -> C at 23).
    await store.appendMany(F, editingTurn({ sessionId: F, turnId: 't3' }, 6, { previous: B, before: B, after: C }, [FILES[0]]));
    const page = all(new Transcript(readerOf(store)), F);
    assert.deepStrictEqual(
      page.items.filter((i) => i.fileChanges !== undefined).map((i) => [i.messageId, i.entryId, i.fileChanges?.entryId, i.fileChanges?.afterId, i.markers]),
      [
        ['t2/assistant/2', 12, 13, B, ['inherited']],
        ['t3/assistant/2', 22, 23, C, []],
      ],
    );
    assert.strictEqual(page.checkpointsFrom, 6);
  });

  it('the protocol: items with changes pass; a change kind it does not know is refused', () => {
    const item = {
      entryId: 12,
      messageId: 'm',
      role: 'assistant',
      status: 'sent',
      text: 'Done.',
      cut: false,
      markers: [],
      entryIds: [12],
      toolCalls: [],
      fileChanges: { beforeId: A, afterId: B, entryId: 13, files: FILES, filesOmitted: 0 },
    };
    const appended = { type: 'appended', sessionId: S, headEntryId: 14, rows: [], transcript: [item], checkpointsFrom: 6 };
    assert.deepStrictEqual(hostToInspector.parse(appended), appended);
    const renamed = { ...item, fileChanges: { ...item.fileChanges, files: [{ path: 'x', change: 'renamed', added: 1, removed: 1 }] } };
    assert.strictEqual(hostToInspector.safeParse({ ...appended, transcript: [renamed] }).success, false);
  });

  it("the controller's appended delta brings checkpointsFrom and the item that gained the turn's changes", async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(S, talkingTurn({ sessionId: S, turnId: 't1' }, 1));
    const posted: HostToInspector[] = [];
    const host: InspectorHost = { post: (m) => posted.push(hostToInspector.parse(m)), copy: () => undefined, command: () => undefined };
    const c = new InspectorController(inspectorSource(store, 'mem', false), host, { batchMs: 20 });
    await c.handle({ type: 'ready' });
    const first = posted.splice(0).find((m) => m.type === 'transcript');
    assert.ok(first?.type === 'transcript' && first.checkpointsFrom === undefined);
    const turn = editingTurn({ sessionId: S, turnId: 't2' }, 3, { previous: null, before: A, after: B }, FILES);
    // Each batch is waited for, so the two stay two deltas however slow the machine is.
    const delta = async (head: number) => {
      while (!posted.some((m) => m.type === 'appended' && m.headEntryId === head)) await new Promise((r) => setTimeout(r, 10));
    };
    await store.appendMany(S, turn.slice(0, 7));
    await delta(12);
    await store.appendMany(S, turn.slice(7));
    await delta(14);
    const deltas = posted.splice(0).filter((m) => m.type === 'appended');
    assert.deepStrictEqual(
      deltas.map((m) => [m.headEntryId, m.checkpointsFrom, brief(m.transcript).map(([id, , changes]) => [id, changes !== null])]),
      [
        [
          12,
          6,
          [
            ['t2/user', false],
            ['t2/assistant/1', false],
            ['t2/assistant/2', false],
          ],
        ],
        [14, 6, [['t2/assistant/2', true]]],
      ],
    );
    c.dispose();
  });
});
