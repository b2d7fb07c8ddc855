import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TapeLockedError } from '../../../src/store/errors';
import { acquireLock } from '../../../src/store/lock';
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
    await assert.rejects(TapeStore.open(file), (e: Error) => e instanceof TapeLockedError && e.message.includes(file) && e.message.includes(`pid ${process.pid}`));
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
    assert.strictEqual(fs.readFileSync(`${file}.lock`, 'utf8'), String(process.pid));
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
