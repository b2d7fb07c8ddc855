import * as assert from 'assert';
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import { once } from 'events';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CheckpointStore, type CheckpointStoreOptions } from '../../../src/agent/checkpoints/checkpointStore';
import { DEFAULT_GIT_DEADLINE, gitDeadlineMs, runGit, type ShadowPlace } from '../../../src/agent/checkpoints/shadowGit';
import { lockText } from '../../../src/store/lock';

/** A process that has exited: its pid is dead. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('checkpoint store locks and git deadlines (a git killed mid-run, a store shared by live processes)', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let storeDir: string;
  const living: ChildProcess[] = [];

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-checkpoint-locks-')));
    ws = path.join(base, 'ws');
    storeDir = path.join(base, 'a store whose path is long enough to be cut', 'work.tape.sqlite.checkpoints');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  });
  afterEach(async () => {
    for (const child of living.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(base, { recursive: true, force: true });
  });

  const open = (options: CheckpointStoreOptions = {}) => CheckpointStore.open(storeDir, ws, options);
  const indexOf = () => path.join(storeDir, fs.readdirSync(storeDir).find((name) => /^index-[0-9a-f]{16}$/.test(name)) as string);
  const storeLock = () => path.join(storeDir, 'agent-tape.lock');
  /** A process that lives until the test ends it. */
  const live = (): ChildProcess => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    living.push(child);
    return child;
  };
  const stop = async (child: ChildProcess) => {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  };

  it('a git SIGKILLed while holding the index lock: the next checkpoint removes the lock and succeeds', async () => {
    const store = await open();
    await store.snapshot();
    const index = indexOf();
    // update-index --stdin takes the index lock, then waits for its paths: killed there, as at its deadline.
    const git = spawn('git', ['update-index', '--add', '--stdin'], {
      cwd: ws,
      env: {
        PATH: process.env.PATH,
        HOME: storeDir,
        GIT_DIR: storeDir,
        GIT_WORK_TREE: ws,
        GIT_INDEX_FILE: index,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    living.push(git);
    await until(() => fs.existsSync(`${index}.lock`), 'git to take the index lock');
    await stop(git);
    assert.ok(fs.existsSync(`${index}.lock`), 'the killed git left its lock');

    fs.writeFileSync(path.join(ws, 'b.txt'), 'b\n');
    const next = await store.snapshot();
    assert.deepStrictEqual(
      next.files.map((f) => [f.path, f.change]),
      [['b.txt', 'added']],
    );
    assert.ok(!fs.existsSync(`${index}.lock`));
  });

  it("a process killed during a restore (its store lock, its git's record, git's index, ref, packed-refs and shallow locks and a temporary pack left): the next restore and its undo succeed, nothing of them left", async () => {
    const store = await open();
    const first = await store.snapshot();
    fs.writeFileSync(path.join(ws, 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(ws, 'b.txt'), 'b\n');
    await store.snapshot();
    const dead = await deadPid();
    const leftBehind = [
      `${indexOf()}.lock`,
      path.join(storeDir, 'refs', 'tape', `${path.basename(indexOf()).slice('index-'.length)}.lock`),
      path.join(storeDir, 'packed-refs.lock'),
      path.join(storeDir, 'shallow.lock'),
      // The pack a killed update-index was writing.
      path.join(storeDir, 'objects', 'pack', 'tmp_pack_Ab12Cd'),
    ];
    for (const lock of leftBehind) fs.writeFileSync(lock, '');
    fs.writeFileSync(storeLock(), lockText(dead));
    fs.writeFileSync(path.join(storeDir, `agent-tape-git-${await deadPid()}.lock`), lockText(dead));

    const plan = await store.planRestore(first.checkpointId);
    await store.applyRestore(plan);
    assert.strictEqual(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'a\n');
    assert.ok(!fs.existsSync(path.join(ws, 'b.txt')));
    const undo = await store.planRestore(plan.before.checkpointId);
    await store.applyRestore(undo);
    assert.strictEqual(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'changed\n');
    assert.deepStrictEqual(
      fs.readdirSync(storeDir).filter((name) => name.endsWith('.lock')),
      [],
    );
    for (const lock of leftBehind) assert.ok(!fs.existsSync(lock), lock);
  });

  it("a store held by a live process: its locks are left, the error names the store's lock and git's; once it is gone, the next checkpoint succeeds", async () => {
    const store = await open({ lockWaitMs: 300 });
    await store.snapshot();
    const holder = live();
    fs.writeFileSync(storeLock(), lockText(holder.pid));
    const indexLock = `${indexOf()}.lock`;
    fs.writeFileSync(indexLock, '');
    fs.writeFileSync(path.join(ws, 'b.txt'), 'b\n');

    await assert.rejects(store.snapshot(), (e: Error) => {
      assert.ok(e.message.includes(storeLock()), e.message);
      assert.ok(e.message.includes(indexLock), e.message);
      assert.ok(e.message.includes(`pid ${holder.pid}`), e.message);
      return true;
    });
    assert.ok(fs.existsSync(indexLock) && fs.existsSync(storeLock()), 'a live holder keeps its locks');

    await stop(holder);
    assert.deepStrictEqual(
      (await store.snapshot()).files.map((f) => f.path),
      ['b.txt'],
    );
    assert.ok(!fs.existsSync(indexLock) && !fs.existsSync(storeLock()));
  });

  it('a git still running after its process died (recorded as ours): its lock is left and named, and removed once it has exited', async () => {
    const store = await open({ lockWaitMs: 300 });
    await store.snapshot();
    const orphan = live();
    fs.writeFileSync(storeLock(), lockText(await deadPid()));
    fs.writeFileSync(path.join(storeDir, `agent-tape-git-${orphan.pid}.lock`), lockText(orphan.pid));
    const indexLock = `${indexOf()}.lock`;
    fs.writeFileSync(indexLock, '');
    fs.writeFileSync(path.join(ws, 'b.txt'), 'b\n');

    await assert.rejects(store.snapshot(), (e: Error) => e.message.includes(indexLock) && e.message.includes(`pid ${orphan.pid}`));
    assert.ok(fs.existsSync(indexLock));

    await stop(orphan);
    assert.deepStrictEqual(
      (await store.snapshot()).files.map((f) => f.path),
      ['b.txt'],
    );
    assert.ok(!fs.existsSync(indexLock));
  });

  it("git's error names the lock file whole, not cut to its last lines", async () => {
    await open();
    const place: ShadowPlace = { gitDir: storeDir, workTree: ws, indexFile: path.join(storeDir, 'index-by-hand') };
    fs.writeFileSync(`${place.indexFile}.lock`, '');
    await assert.rejects(runGit(place, ['update-index', '--add', '-z', '--stdin'], { input: 'a.txt\0' }), (e: Error) => {
      assert.ok(e.message.includes(`${place.indexFile}.lock`), e.message);
      return true;
    });
  });

  it('a git run is stopped at a deadline that grows with the files and bytes it works through', async () => {
    await open();
    const place: ShadowPlace = { gitDir: storeDir, workTree: ws, indexFile: path.join(storeDir, 'index-by-hand') };
    // hash-object opens the FIFO and waits for a writer that never comes: only the deadline ends it.
    execFileSync('mkfifo', [path.join(ws, 'fifo')]);
    const deadline = { baseMs: 100, msPerFile: 50, msPerMiB: 200 };
    for (const work of [{ files: 1 }, { files: 4, bytes: 2 * 1024 * 1024 }]) {
      const expected = gitDeadlineMs(work, deadline);
      await assert.rejects(runGit(place, ['hash-object', '--stdin-paths'], { input: 'fifo\n', work, deadline }), (e: Error) =>
        e.message.includes(`deadline of ${expected} ms`),
      );
    }
    assert.strictEqual(gitDeadlineMs({ files: 4, bytes: 2 * 1024 * 1024 }, deadline), 100 + 4 * 50 + 2 * 200);
    assert.strictEqual(gitDeadlineMs({ files: 0 }), DEFAULT_GIT_DEADLINE.baseMs);
    assert.ok(gitDeadlineMs({ files: 50_000 }) > gitDeadlineMs({ files: 40_000 }));
  });
});
