import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CheckpointStore, StalePlanError } from '../../../src/agent/checkpoints/checkpointStore';
import { applyRestore, planRestore, RestoreFailedError, WrongWorkspaceError, type Append } from '../../../src/agent/checkpoints/restore';
import { WorkspaceCheckpoints } from '../../../src/agent/checkpoints/workspaceCheckpoints';
import type { Entry, NewEntry } from '../../../src/tape/entry';
import { checkpointEntry, checkpointOf, restoredOf, restoreFailedOf, workspaceStateAt, type CheckpointData } from '../../../src/tape/workspaceCheckpoint';
import { dirDigest } from '../../support/dirDigest';

const SESSION = 's1';

const digest = (dir: string): Record<string, string> => dirDigest(dir);

/** The test's own git on the store (no user configuration): to write a commit the workspace never had. */
function storeGit(storeDir: string, args: string[], input?: string): string {
  return execFileSync('git', ['--git-dir', storeDir, ...args], {
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: storeDir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
  }).trim();
}

/** A tape of one session in memory: the entries `applyRestore` appends, numbered. */
function memoryTape(events: Entry[] = []) {
  const entries = [...events];
  const append: Append = async (added: NewEntry[]) => {
    for (const e of added) entries.push({ ...e, sessionId: SESSION, entryId: entries.length + 1, meta: e.meta ?? {}, createdAt: 0 } as Entry);
    return entries.length;
  };
  return { entries, append };
}

describe('restore: into the folder the checkpoint is of, all or nothing (real directories and the system git)', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let other: string;
  let storeDir: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-restore-')));
    ws = path.join(base, 'ws');
    other = path.join(base, 'other');
    storeDir = path.join(base, 'store');
    for (const dir of [ws, other]) {
      fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'notes.txt'), `notes of ${path.basename(dir)}\n`);
      fs.writeFileSync(path.join(dir, 'src', 'main.c'), `int main(void) { return 0; } /* ${path.basename(dir)} */\n`);
    }
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  /** A checkpoint of `dir` as a turn records it (through WorkspaceCheckpoints), as entry `entryId`. */
  async function checkpointOfFolder(dir: string, entryId: number): Promise<Entry> {
    const taken = await new WorkspaceCheckpoints(storeDir, dir).take(SESSION, 'turn_end', 't1');
    assert.ok(taken !== null && taken.kind === 'checkpoint');
    return { ...checkpointEntry(SESSION, taken.data), sessionId: SESSION, entryId, meta: {}, createdAt: 0 } as Entry;
  }

  it("a checkpoint entry records its folder's store key and real path; a store opened on another folder is refused, naming both, and nothing changes", async () => {
    const entry = await checkpointOfFolder(ws, 1);
    const store = await CheckpointStore.open(storeDir, ws);
    assert.deepStrictEqual(checkpointOf(entry)?.workspace, store.workspace);
    assert.deepStrictEqual(store.workspace.root, ws);
    assert.strictEqual(`refs/tape/${store.workspace.key}`, storeGit(storeDir, ['for-each-ref', '--format=%(refname)']));
    assert.deepStrictEqual(workspaceStateAt([entry], 1)?.workspace, store.workspace);

    const files = digest(other);
    const elsewhere = await CheckpointStore.open(storeDir, other);
    await assert.rejects(planRestore(SESSION, [entry], 1, elsewhere), (e: Error) => {
      assert.ok(e instanceof WrongWorkspaceError, String(e));
      assert.ok(e.message.includes(ws) && e.message.includes(other), e.message);
      return true;
    });
    assert.deepStrictEqual(digest(other), files, "the other folder's notes.txt and src/main.c are still there");
  });

  it('an entry of an older build (no folder recorded) restores only into a folder whose snapshots hold it', async () => {
    const entry = await checkpointOfFolder(ws, 1);
    const data = { ...checkpointOf(entry)! } as Partial<CheckpointData>;
    delete data.workspace;
    const old = { ...entry, payload: { name: entry.name, data } } as Entry;
    await checkpointOfFolder(other, 2);
    const files = digest(other);
    await assert.rejects(planRestore(SESSION, [old], 1, await CheckpointStore.open(storeDir, other)), (e: Error) => {
      assert.ok(e instanceof WrongWorkspaceError, String(e));
      assert.match(e.message, /does not say which folder it was taken of and is not among the checkpoints of .*other/);
      return true;
    });
    assert.deepStrictEqual(digest(other), files);

    fs.rmSync(path.join(ws, 'notes.txt'));
    const planned = await planRestore(SESSION, [old], 1, await CheckpointStore.open(storeDir, ws));
    assert.deepStrictEqual(planned.plan.created, ['notes.txt']);
  });

  it('a file of the plan changed between plan and apply: StalePlanError naming it, no file written, nothing on the tape', async () => {
    const entry = await checkpointOfFolder(ws, 1);
    const store = await CheckpointStore.open(storeDir, ws);
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'my edit\n');
    fs.writeFileSync(path.join(ws, 'draft.txt'), 'new\n');
    const tape = memoryTape([entry]);
    const planned = await planRestore(SESSION, tape.entries, 1, store);
    assert.deepStrictEqual([planned.plan.changed, planned.plan.removed], [['notes.txt'], ['draft.txt']]);
    // Another process writes while the confirmation is open.
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'my edit, saved again meanwhile\n');
    fs.writeFileSync(path.join(ws, 'unrelated.txt'), 'not in the plan\n');
    const files = digest(ws);
    await assert.rejects(applyRestore(planned, store, tape.append), (e: Error) => {
      assert.ok(e instanceof StalePlanError, String(e));
      assert.deepStrictEqual(e.files, ['notes.txt']);
      assert.match(e.message, /^notes\.txt changed after the restore was planned: nothing was changed/);
      return true;
    });
    assert.deepStrictEqual(digest(ws), files, 'every file as it was');
    assert.strictEqual(tape.entries.length, 1, 'nothing appended');

    // Something ignored put where the plan creates a file is as stale.
    fs.writeFileSync(path.join(ws, '.gitignore'), 'notes.txt\n');
    fs.rmSync(path.join(ws, 'notes.txt'));
    fs.writeFileSync(path.join(ws, 'draft.txt'), 'again\n');
    const replanned = await planRestore(SESSION, tape.entries, 1, store);
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'ignored, and not to be overwritten\n');
    await assert.rejects(applyRestore(replanned, store, tape.append), (e: Error) => e instanceof StalePlanError && e.files.includes('notes.txt'));
    assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'ignored, and not to be overwritten\n');

    // A new plan sees the change and applies; a file the plan does not touch may change meanwhile.
    fs.rmSync(path.join(ws, '.gitignore'));
    const fresh = await planRestore(SESSION, tape.entries, 1, store);
    assert.ok(!fresh.plan.changed.includes('src/main.c'));
    fs.writeFileSync(path.join(ws, 'src', 'main.c'), 'changed meanwhile, not touched\n');
    const receipt = await applyRestore(fresh, store, tape.append);
    assert.strictEqual(receipt.restored, true);
    assert.strictEqual(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'notes of ws\n');
    assert.ok(!fs.existsSync(path.join(ws, 'unrelated.txt')));
    assert.strictEqual(fs.readFileSync(path.join(ws, 'src', 'main.c'), 'utf8'), 'changed meanwhile, not touched\n');
    const before = checkpointOf(tape.entries[receipt.checkpointEntryId! - 1])!;
    assert.strictEqual(before.reason, 'before_restore');
    assert.deepStrictEqual(before.workspace, store.workspace);
    const restored = restoredOf(tape.entries[receipt.restoredEntryId! - 1])!;
    assert.strictEqual(restored.fromCheckpointId, before.checkpointId, 'the restore is recorded from the files as they were when it wrote');
    assert.deepStrictEqual(restored.workspace, store.workspace);
  });

  it('a write that fails part way (after the removals): every file is put back byte for byte, and the tape says restore-failed', async () => {
    fs.writeFileSync(path.join(ws, 'gone.bin'), Buffer.from([0, 1, 2, 0xff]));
    const store = await CheckpointStore.open(storeDir, ws);
    const start = await store.snapshot();
    // A target the workspace can never take: its first step (removing gone.bin) works, the second
    // (writing notes.txt and a path git refuses to write, .git/evil) fails.
    const blob = (text: string) => storeGit(storeDir, ['hash-object', '-w', '--stdin'], text);
    const evil = storeGit(storeDir, ['mktree'], `100644 blob ${blob('evil\n')}\tevil\n`);
    const srcTree = storeGit(storeDir, ['rev-parse', `${start.checkpointId}:src`]);
    const tree = storeGit(
      storeDir,
      ['mktree'],
      [`040000 tree ${evil}\t.git`, `100644 blob ${blob('other notes\n')}\tnotes.txt`, `040000 tree ${srcTree}\tsrc`].join('\n') + '\n',
    );
    const target = storeGit(storeDir, ['commit-tree', tree, '-p', start.checkpointId, '-m', 'target']);
    const entry = {
      ...checkpointEntry(SESSION, { ...start, checkpointId: target, reason: 'turn_end', workspace: store.workspace }),
      sessionId: SESSION,
      entryId: 1,
      meta: {},
      createdAt: 0,
    } as Entry;
    const tape = memoryTape([entry]);
    const planned = await planRestore(SESSION, tape.entries, 1, store);
    assert.deepStrictEqual([planned.plan.removed, planned.plan.changed, planned.plan.created], [['gone.bin'], ['notes.txt'], ['.git/evil']]);
    const files = digest(ws);
    await assert.rejects(applyRestore(planned, store, tape.append), (e: Error) => {
      assert.ok(e instanceof RestoreFailedError, String(e));
      assert.strictEqual(e.rolledBack, true);
      assert.match(e.message, /the restore failed part way \(git restore failed.*\); every file was put back as it was/);
      return true;
    });
    assert.deepStrictEqual(digest(ws), files, 'gone.bin is back and notes.txt untouched, byte for byte');
    const [before, failed] = tape.entries.slice(1);
    assert.strictEqual(checkpointOf(before)?.reason, 'before_restore');
    const data = restoreFailedOf(failed);
    assert.ok(data !== null);
    assert.deepStrictEqual(
      [data.fromCheckpointId, data.toCheckpointId, data.rolledBack, data.differing, data.workspace],
      [checkpointOf(before)?.checkpointId, target, true, [], store.workspace],
    );
    // The store goes on: a later snapshot sees the files as they are.
    assert.deepStrictEqual((await store.snapshot()).files, []);
  });
});
