import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { CheckpointStore } from '../../src/agent/checkpoints/checkpointStore';
import { checkpointStoreOf, tapeFileExclusions } from '../../src/agent/checkpoints/workspaceCheckpoints';
import type { AgentTapeApi } from '../../src/extension/extension';
import { checkpointUri } from '../../src/extension/checkpoints/checkpointDocuments';
import type { RestoreSummary } from '../../src/extension/checkpoints/restoreFiles';
import type { ForkReceipt } from '../../src/store/forks';
import type { TapeStore } from '../../src/store/tapeStore';
import type { Entry } from '../../src/tape/entry';
import { turnEndEntry, turnStartEntry } from '../../src/tape/turnEntries';
import { checkpointEntry, type CheckpointWorkspace } from '../../src/tape/workspaceCheckpoint';
import { message } from '../unit/inspector/helpers';
import { agentTapeLog } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const S = `checkpoints-${process.pid}`;
const TURN = 't1';

/** The files of the test's folder in the demo workspace, byte for byte (absent ones as null). */
type Files = Record<string, Buffer | null>;

describe('Workspace checkpoints in a real VS Code: restore, undo, review and rewind', () => {
  const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const dir = `checkpoints-test-${process.pid}`;
  const rel = (name: string) => `${dir}/${name}`;
  const abs = (name: string) => path.join(root, dir, name);
  const original: Files = {
    'a.txt': Buffer.from('one\ntwo\n'),
    'gone.txt': Buffer.from('removed by the turn\n'),
    'data.bin': Buffer.from([0, 1, 2, 255, 0, 10]),
    'new.txt': null,
  };
  const edited: Files = {
    'a.txt': Buffer.from('one\nTWO\nthree\n'),
    'gone.txt': null,
    'data.bin': Buffer.from([0, 9, 9, 9]),
    'new.txt': Buffer.from('created by the turn\n'),
  };
  const write = (files: Files) => {
    for (const [name, bytes] of Object.entries(files))
      if (bytes === null) fs.rmSync(abs(name), { force: true });
      else fs.writeFileSync(abs(name), bytes);
  };
  const read = (): Files => Object.fromEntries(Object.keys(original).map((name) => [name, fs.existsSync(abs(name)) ? fs.readFileSync(abs(name)) : null]));

  let store: TapeStore;
  let beforeId: string;
  /** The folder as the store names it: what a restore of it records. */
  let folder: CheckpointWorkspace;
  let afterId: string;
  /** The turn's first checkpoint (restoring there undoes the turn) and its last. */
  let startEntry: number;
  let endEntry: number;
  /** The fork Rewind makes, with its restore. */
  let forked: (ForkReceipt & { restore?: RestoreSummary }) | undefined;

  const restore = (sessionId: string, at: number, given?: object) =>
    vscode.commands.executeCommand<RestoreSummary | undefined>('agentTape.restoreFiles', sessionId, at, ...(given ? [given] : []));
  const tail = (sessionId: string, from: number): Entry[] => store.entries(sessionId, { fromEntryId: from + 1 });

  /**
   * A turn as the agent records it, its checkpoints snapshotted by the store the extension uses (the
   * one beside the workspace tape): the files as `original`, then changed by the turn to `edited`.
   */
  before(async () => {
    const api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
    store = await api.workspaceStore();
    const tapeFile = await api.workspaceTapeFile();
    const checkpoints = await CheckpointStore.open(checkpointStoreOf(tapeFile), root, { exclude: tapeFileExclusions(tapeFile) });
    folder = checkpoints.workspace;
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    write(original);
    const turn = { sessionId: S, turnId: TURN };
    await store.appendMany(S, [turnStartEntry(turn, 20), message('m1', 'user', 1, 'change the files\nplease', 'sent', { turnId: TURN })]);
    const first = await checkpoints.snapshot();
    beforeId = first.checkpointId;
    startEntry = (await store.append(S, checkpointEntry(S, { ...first, reason: 'turn_start', turnId: TURN }))).entry.entryId;
    write(edited);
    const last = await checkpoints.snapshot({ diffFrom: beforeId });
    afterId = last.checkpointId;
    assert.deepStrictEqual(
      last.files.map((f) => [f.path, f.change]),
      [
        [rel('a.txt'), 'modified'],
        [rel('data.bin'), 'modified'],
        [rel('gone.txt'), 'deleted'],
        [rel('new.txt'), 'added'],
      ],
      'the turn changed exactly the test files',
    );
    endEntry = (await store.append(S, checkpointEntry(S, { ...last, reason: 'turn_end', turnId: TURN }))).entry.entryId;
    await store.append(S, turnEndEntry(turn, 'answer', 1));
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.join(root, dir), { recursive: true, force: true });
  });

  it("a checkpoint document holds the file's bytes at that checkpoint; a file it lacks is empty, a binary one a note", async () => {
    const text = async (id: string, name: string) => (await vscode.workspace.openTextDocument(checkpointUri(id, rel(name)))).getText();
    assert.strictEqual(await text(beforeId, 'a.txt'), 'one\ntwo\n');
    assert.strictEqual(await text(afterId, 'a.txt'), 'one\nTWO\nthree\n');
    assert.strictEqual(await text(beforeId, 'new.txt'), '');
    assert.strictEqual(await text(afterId, 'gone.txt'), '');
    assert.strictEqual(await text(beforeId, 'data.bin'), '(binary file, 6 bytes: not shown)\n');
    const doc = await vscode.workspace.openTextDocument(checkpointUri(afterId, rel('new.txt')));
    assert.strictEqual(doc.getText(), 'created by the turn\n');
    assert.strictEqual(doc.isUntitled, false);
  });

  it("Review Changes opens VS Code's multi-diff editor of the turn: one diff per changed file, between its two checkpoints", async () => {
    const shown = await vscode.commands.executeCommand<{ title: string; files: string[] }>('agentTape.reviewTurnChanges', S, TURN);
    assert.ok(shown);
    assert.deepStrictEqual(shown.files, [rel('a.txt'), rel('data.bin'), rel('gone.txt'), rel('new.txt')]);
    const tab = await until('the multi-diff editor', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === `${shown.title} (4 files)`),
    );
    // TabInputTextMultiDiff is not in the stable API's types yet; it lists the diffs of files both sides have.
    const diffs = (tab.input as { textDiffs?: { original?: vscode.Uri; modified?: vscode.Uri }[] }).textDiffs;
    assert.ok(Array.isArray(diffs), `a multi-diff tab input: ${JSON.stringify(tab.input)}`);
    assert.deepStrictEqual(
      diffs.map((d) => d.modified?.path),
      [`/${rel('a.txt')}`, `/${rel('data.bin')}`],
    );
    const modified = diffs.find((d) => d.modified?.path === `/${rel('a.txt')}`);
    assert.strictEqual(modified?.original?.toString(), checkpointUri(beforeId, rel('a.txt')).toString());
    assert.strictEqual(modified?.modified?.toString(), checkpointUri(afterId, rel('a.txt')).toString());
  });

  it("Open Checkpoint Diff (the inspector's file link) opens the diff editor of two checkpoints, titled with the file and the turn", async () => {
    const [left, right] = (await vscode.commands.executeCommand<vscode.Uri[]>('agentTape.openCheckpointDiff', S, beforeId, afterId, rel('a.txt')))!;
    const tab = await until('the diff editor', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'a.txt (turn t1…)'));
    assert.ok(tab.input instanceof vscode.TabInputTextDiff);
    assert.strictEqual(tab.input.original.toString(), left.toString());
    assert.strictEqual(tab.input.modified.toString(), right.toString());
  });

  it('restoring where the session has no checkpoint says so and changes nothing', async () => {
    const head = store.headEntryId(S);
    assert.strictEqual(await restore(S, 1, { confirmed: true }), undefined);
    await agentTapeLog(`restore of ${S} at entry 1 refused: session ${S} has no workspace checkpoint at or before entry 1`);
    assert.strictEqual(store.headEntryId(S), head);
    assert.deepStrictEqual(read(), edited);
  });

  it('a checkpoint of another folder is refused, naming both folders, and nothing changes', async () => {
    const other = `${S}-other`;
    const elsewhere = path.join(path.dirname(root), `another-folder-${process.pid}`);
    const at = (
      await store.append(
        other,
        checkpointEntry(other, {
          checkpointId: beforeId,
          previousId: null,
          reason: 'turn_end',
          workspace: { key: 'f'.repeat(16), root: elsewhere },
          fileCount: 0,
          files: [],
          filesOmitted: 0,
          skipped: [],
          skippedOmitted: 0,
          durationMs: 1,
        }),
      )
    ).entry.entryId;
    assert.strictEqual(await restore(other, at, { confirmed: true }), undefined);
    await agentTapeLog(
      `restore of ${other} at entry ${at} refused: checkpoint ${beforeId.slice(0, 12)} (entry ${at}) was taken of the folder ${elsewhere}, not of `,
    );
    assert.strictEqual(store.headEntryId(other), at);
    assert.deepStrictEqual(read(), edited);
  });

  it('the plan is shown first: a restore whose confirmation is not accepted changes nothing', async () => {
    // The test workbench answers the modal without choosing Restore Files, as a user who cancels does.
    const head = store.headEntryId(S);
    assert.strictEqual(await restore(S, startEntry), undefined);
    assert.strictEqual(store.headEntryId(S), head);
    assert.deepStrictEqual(read(), edited);
  });

  it('an editor with unsaved changes of an affected file refuses the restore, and nothing changes', async () => {
    // The web workbench saves after a second by default: the change must stay unsaved.
    const files = vscode.workspace.getConfiguration('files');
    await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    const doc = await vscode.workspace.openTextDocument(abs('a.txt'));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'unsaved '));
    assert.ok(doc.isDirty);
    const head = store.headEntryId(S);
    try {
      assert.strictEqual(await restore(S, startEntry, { confirmed: true }), undefined);
      await agentTapeLog(`restore refused: unsaved changes in ${rel('a.txt')}`);
      assert.strictEqual(store.headEntryId(S), head, 'nothing on the tape');
      assert.deepStrictEqual(read(), edited, 'nothing on disk');
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await files.update('autoSave', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.strictEqual(doc.isDirty, false);
  });

  it("Undo This Turn's Changes brings every file back byte for byte (changed, removed and created ones) and records it on the tape", async () => {
    const head = store.headEntryId(S);
    const done = await vscode.commands.executeCommand<RestoreSummary>('agentTape.undoTurnChanges', S, TURN, { confirmed: true });
    assert.ok(done);
    assert.deepStrictEqual(read(), original);
    assert.deepStrictEqual(
      { restored: done.restored, checkpointId: done.checkpointId, changed: done.changed, created: done.created, removed: done.removed },
      { restored: true, checkpointId: beforeId, changed: [rel('a.txt'), rel('data.bin')], created: [rel('gone.txt')], removed: [rel('new.txt')] },
    );
    const appended = tail(S, head);
    assert.deepStrictEqual(
      appended.map((e) => [e.entryId, e.name]),
      [
        [done.checkpointEntryId, 'workspace/checkpoint'],
        [done.restoredEntryId, 'workspace/restored'],
      ],
    );
    const snapshot = appended[0].payload.data as { reason: string; checkpointId: string };
    assert.strictEqual(snapshot.reason, 'before_restore');
    assert.strictEqual(snapshot.checkpointId, afterId, "the files as they were before the restore: the turn's end");
    assert.deepStrictEqual(appended[1].payload.data, {
      fromCheckpointId: afterId,
      toCheckpointId: beforeId,
      atEntryId: startEntry,
      changed: [rel('a.txt'), rel('data.bin')],
      created: [rel('gone.txt')],
      removed: [rel('new.txt')],
      omitted: 0,
      workspace: folder,
    });
    assert.strictEqual(folder.root, fs.realpathSync(root), "the restore names the workspace's folder by its real path");
  });

  it('restoring again where the files already are changes nothing, on disk or on the tape', async () => {
    const head = store.headEntryId(S);
    const done = await restore(S, startEntry, { confirmed: true });
    assert.deepStrictEqual([done?.restored, done?.changed, done?.created, done?.removed], [false, [], [], []]);
    assert.strictEqual(store.headEntryId(S), head);
    assert.deepStrictEqual(read(), original);
  });

  it('Rewind, conversation and files: a fork at the entry, and the files restored into the fork; the parent gains nothing', async () => {
    const parentHead = store.headEntryId(S);
    const turnEnd = endEntry + 1;
    const receipt = await vscode.commands.executeCommand<ForkReceipt & { restore?: RestoreSummary }>('agentTape.rewind', S, turnEnd, {
      choice: 'both',
      confirmed: true,
    });
    assert.ok(receipt?.restore, 'a fork with its restore');
    forked = receipt;
    const fork = receipt.forkSessionId;
    assert.strictEqual(receipt.parentHeadEntryId, turnEnd);
    assert.deepStrictEqual([receipt.restore.sessionId, receipt.restore.restored, receipt.restore.checkpointId], [fork, true, afterId]);
    assert.deepStrictEqual(read(), edited, 'the files as at the end of the turn');
    assert.strictEqual(store.headEntryId(S), parentHead);
    assert.deepStrictEqual(
      store.entries(fork).map((e) => e.name),
      ['session/start', 'fork/start', 'workspace/checkpoint', 'workspace/restored'],
    );
  });

  it("Undo Restore (a restore to the restore's own checkpoint) brings the files back as they were before it", async () => {
    assert.ok(forked?.restore?.checkpointEntryId);
    const undone = store.entries(forked.forkSessionId).find((e) => e.name === 'workspace/checkpoint')!.payload.data as { checkpointId: string };
    const done = await restore(forked.forkSessionId, forked.restore.checkpointEntryId, { confirmed: true });
    assert.deepStrictEqual([done?.restored, done?.checkpointId], [true, undone.checkpointId]);
    assert.deepStrictEqual(read(), original);
  });
});
