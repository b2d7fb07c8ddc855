import * as assert from 'assert';
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeLockedError } from '../../../src/store/errors';
import { acquireLock, lockHolder } from '../../../src/store/lock';
import { journalPathOf } from '../../../src/store/journal';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, message, tempDir } from './helpers';

describe('single writer lock and read-only opens', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'l.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a second writer in the same process is refused with the file and the holder pid', async () => {
    const s = await TapeStore.open(file);
    await assert.rejects(
      TapeStore.open(file),
      (e: Error) => e instanceof TapeLockedError && e.message.includes(file) && e.message.includes(`pid ${process.pid}`),
    );
    await s.close();
    const again = await TapeStore.open(file);
    await again.close();
  });

  it('a live holder in another process is refused; a dead one is taken over', async () => {
    await (await TapeStore.open(file)).close();
    fs.writeFileSync(`${file}.lock`, String(process.ppid)); // our parent: certainly alive
    await assert.rejects(TapeStore.open(file), (e: Error) => e instanceof TapeLockedError && e.message.includes(`pid ${process.ppid}`));
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    fs.writeFileSync(`${file}.lock`, dead.stdout.trim());
    const s = await TapeStore.open(file);
    assert.strictEqual(fs.readFileSync(`${file}.lock`, 'utf8').split('\n')[0], String(process.pid), 'the pid first, as older versions read it');
    await s.close();
    assert.ok(!fs.existsSync(`${file}.lock`));
  });

  it('two openers taking over the same stale lock: only one becomes the writer', () => {
    const lockFile = `${file}.lock`;
    fs.writeFileSync(lockFile, '999999999'); // a crashed writer's lock
    const nodeFs = require('fs') as typeof fs;
    const realRename = nodeFs.renameSync;
    let other: (() => void) | undefined;
    let raced = false;
    // The other opener takes the stale lock over between our check of it and our removal of it.
    (nodeFs as { renameSync: unknown }).renameSync = (from: fs.PathLike, to: fs.PathLike) => {
      if (!raced) {
        raced = true;
        other = acquireLock(file);
        fs.writeFileSync(lockFile, 'a live writer'); // mark its lock so we can tell it apart
      }
      return realRename(from, to);
    };
    try {
      assert.throws(() => acquireLock(file), TapeLockedError);
    } finally {
      (nodeFs as { renameSync: unknown }).renameSync = realRename;
    }
    assert.strictEqual(fs.readFileSync(lockFile, 'utf8'), 'a live writer', "the other opener's lock is left in place");
    assert.deepStrictEqual(fs.readdirSync(dir), [path.basename(lockFile)], 'nothing else is left behind');
    other?.();
  });

  it('a read-only open works while a writer holds the lock and never writes anything', async () => {
    const w = await TapeStore.open(file);
    await w.append('s', message('m1', 'hello'));
    const before = [fingerprint(file), fingerprint(journalPathOf(file)), fingerprint(`${file}.lock`)];
    const r = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(r.headEntryId('s'), 2);
    assert.strictEqual(r.search('hello').length, 1);
    await assert.rejects(r.append('s', message('m2', 'nope')), /read-only/);
    await r.close();
    assert.deepStrictEqual([fingerprint(file), fingerprint(journalPathOf(file)), fingerprint(`${file}.lock`)], before);
    await w.append('s', message('m2', 'later'));
    const r2 = await TapeStore.open(file, { readOnly: true });
    const gen = r2.generation();
    await w.append('s', message('m3', 'even later'));
    await r2.reload();
    assert.strictEqual(r2.headEntryId('s'), 4);
    assert.ok(r2.generation() > gen);
    await r2.close();
    await w.close();
  });

  it('a read-only open of a missing file fails and creates nothing', async () => {
    await assert.rejects(TapeStore.open(file, { readOnly: true }), /does not exist/);
    assert.deepStrictEqual(fs.readdirSync(dir), []);
  });
});

/** A process's start as a lock records it (`<boot id>:<field 22 of /proc/<pid>/stat>`), computed here on its own. */
function startOf(pid: number): string {
  const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return `${boot}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
}

describe('a lock names its writer by pid, host and start, so a reused pid does not block writers', function () {
  let dir: string;
  let file: string;
  let sleeper: ChildProcess;
  beforeEach(function () {
    if (!fs.existsSync('/proc/self/stat')) this.skip(); // only Linux tells when a process started
    dir = tempDir();
    file = path.join(dir, 'l.tape.sqlite');
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' }); // a live process that is not a writer
  });
  afterEach(() => {
    sleeper?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('records the pid first, then the host and the start of the writing process', () => {
    const release = acquireLock(file);
    assert.strictEqual(fs.readFileSync(`${file}.lock`, 'utf8'), `${process.pid}\nhost=${os.hostname()}\nstart=${startOf(process.pid)}\n`);
    release();
  });

  it('a live pid whose start differs from the recorded one is another process: the lock is taken over', () => {
    const pid = sleeper.pid as number;
    fs.writeFileSync(`${file}.lock`, `${pid}\nhost=${os.hostname()}\nstart=${startOf(pid).replace(/:\d+$/, ':1')}\n`);
    assert.strictEqual(lockHolder(file), null);
    const release = acquireLock(file);
    assert.strictEqual(fs.readFileSync(`${file}.lock`, 'utf8').split('\n')[0], String(process.pid));
    release();
  });

  it('a lock from before a reboot (another boot id) is taken over too', () => {
    const pid = sleeper.pid as number;
    fs.writeFileSync(`${file}.lock`, `${pid}\nhost=${os.hostname()}\nstart=00000000-0000-0000-0000-000000000000:${startOf(pid).split(':')[1]}\n`);
    acquireLock(file)();
  });

  it('the same pid with the recorded start is the writer: refused', () => {
    const pid = sleeper.pid as number;
    fs.writeFileSync(`${file}.lock`, `${pid}\nhost=${os.hostname()}\nstart=${startOf(pid)}\n`);
    assert.strictEqual(lockHolder(file), pid);
    assert.throws(
      () => acquireLock(file),
      (e: Error) => e instanceof TapeLockedError && e.holderPid === pid && e.message.includes(`pid ${pid}`),
    );
  });

  it('an old lock holding only a live pid is still held', () => {
    fs.writeFileSync(`${file}.lock`, String(sleeper.pid));
    assert.strictEqual(lockHolder(file), sleeper.pid);
    assert.throws(() => acquireLock(file), TapeLockedError);
  });

  it('a lock from another host is held, even with a pid dead here, and the error names that host', () => {
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    fs.writeFileSync(`${file}.lock`, `${dead}\nhost=build-box-7\nstart=x:1\n`);
    assert.strictEqual(lockHolder(file), Number(dead));
    assert.throws(
      () => acquireLock(file),
      (e: Error) =>
        e instanceof TapeLockedError &&
        e.message ===
          `${file} is open for writing on another host, build-box-7 (pid ${dead}), whose processes cannot be checked from here; open it read-only instead, or delete ${file}.lock if no Agent Tape on build-box-7 has it open`,
    );
    assert.strictEqual(fs.readFileSync(`${file}.lock`, 'utf8'), `${dead}\nhost=build-box-7\nstart=x:1\n`, 'left as it was');
  });

  it('a lock that is not a small regular file is refused, not read', () => {
    fs.symlinkSync('/dev/zero', `${file}.lock`);
    assert.throws(() => acquireLock(file), /l\.tape\.sqlite\.lock: is a character device, not a regular file/);
    assert.throws(() => lockHolder(file), /is a character device/);
  });
});
