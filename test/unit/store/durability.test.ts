import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError, TapeStoreFailedError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, message, tempDir } from './helpers';
import nodeFs = require('fs');

/** Replaces one function of the fs module (the store sees it too) until the returned restore is called. */
function patchFs<K extends 'openSync' | 'writeSync'>(name: K, impl: (original: (typeof fs)[K]) => (typeof fs)[K]): () => void {
  const original = nodeFs[name];
  nodeFs[name] = impl(original);
  return () => (nodeFs[name] = original);
}

/** Every write to a file (not stdout or stderr) fails with `code` until restored. */
const failFileWrites = (code: string): (() => void) =>
  patchFs(
    'writeSync',
    (write) =>
      ((...args: Parameters<typeof fs.writeSync>) => {
        if (args[0] !== 1 && args[0] !== 2) throw Object.assign(new Error(`${code}: injected by the test`), { code });
        return (write as (...a: unknown[]) => number)(...args);
      }) as typeof fs.writeSync,
  );

const contents = (s: TapeStore): unknown[] => s.entries('s').map((e) => e.payload.content ?? e.name);

describe('store durability after failures', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'd.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a journal rotation that fails after its rename fails the store: no later append is acknowledged', async () => {
    const store = await TapeStore.open(file, { groupCommitMs: 1 });
    await store.append('s', message('m1', 'one'));
    await store.append('s', message('m2', 'two'));
    // The new journal is in place; opening it for writing fails (EMFILE, say).
    const restore = patchFs(
      'openSync',
      (open) =>
        ((...args: Parameters<typeof fs.openSync>) => {
          if (args[0] === journalPathOf(file) && args[1] === 'r+') throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
          return open(...args);
        }) as typeof fs.openSync,
    );
    try {
      await assert.rejects(store.checkpoint(), /EMFILE/);
    } finally {
      restore();
    }
    await assert.rejects(store.append('s', message('m3', 'three')), (e: Error) => e instanceof TapeStoreFailedError);
    await assert.rejects(store.checkpoint(), (e: Error) => e instanceof TapeStoreFailedError, 'no checkpoint once failed');
    await store.close();
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(contents(re), ['session/start', 'one', 'two']);
    await re.close();
  });

  it('a failed store never checkpoints: rows of a rejected append do not reach the snapshot', async () => {
    const store = await TapeStore.open(file, { groupCommitMs: 1 });
    await store.append('s', message('m1', 'kept'));
    await store.checkpoint();
    const snapshotBefore = fingerprint(file);
    const restore = failFileWrites('ENOSPC');
    try {
      await assert.rejects(store.append('s', message('m2', 'rejected')), (e: Error) => e instanceof TapeStoreFailedError && /ENOSPC/.test(e.message));
    } finally {
      restore();
    }
    await assert.rejects(store.checkpoint(), (e: Error) => e instanceof TapeStoreFailedError);
    await store.close();
    assert.deepStrictEqual(fingerprint(file), snapshotBefore, 'the snapshot was not rewritten');
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(contents(re), ['session/start', 'kept']);
    await re.close();
  });

  it('a checkpoint does not replace the snapshot when a record queued before its image failed', async () => {
    const store = await TapeStore.open(file, { groupCommitMs: 1 });
    await store.append('s', message('m1', 'kept'));
    await store.checkpoint();
    const snapshotBefore = fingerprint(file);
    const restore = failFileWrites('EIO');
    // The append's record is queued (written in a microtask); the checkpoint takes its image first.
    const rejected = store.append('s', message('m2', 'rejected'));
    const checkpoint = store.checkpoint();
    try {
      await assert.rejects(rejected, /EIO/);
    } finally {
      restore();
    }
    await assert.rejects(checkpoint, (e: Error) => e instanceof TapeStoreFailedError);
    await store.close();
    assert.deepStrictEqual(fingerprint(file).bytes, snapshotBefore.bytes);
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(contents(re), ['session/start', 'kept']);
    await re.close();
  });

  it('close leaves a small journal for the next open to replay instead of rewriting the snapshot, and checkpoints a large one', async () => {
    let store = await TapeStore.open(file);
    await store.appendMany(
      's',
      Array.from({ length: 50 }, (_, i) => message(`m${i}`, 'x'.repeat(1000))),
    );
    await store.checkpoint();
    await store.append('s', message('one', 'one more'));
    const snapshot = fingerprint(file);
    await store.close();
    assert.deepStrictEqual(fingerprint(file), snapshot, 'one entry does not rewrite the snapshot');
    store = await TapeStore.open(file);
    assert.strictEqual(store.openReport.replayedRecords, 1);
    assert.strictEqual(store.getEntry('s', 52)?.payload.content, 'one more');
    await store.appendMany(
      's',
      Array.from({ length: 1200 }, (_, i) => message(`n${i}`, 'y'.repeat(1000))),
    );
    await store.close();
    assert.notDeepStrictEqual(fingerprint(file).bytes, snapshot.bytes, 'a journal past 1 MiB is checkpointed');
    store = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(store.openReport.replayedRecords, 0);
    assert.strictEqual(store.headEntryId('s'), 1252);
    await store.close();
  });

  it('a writer that never waits on I/O still gets its checkpoints done: its appends wait once the journal is twice the threshold', async () => {
    const store = await TapeStore.open(file, { checkpointBytes: 256 << 10 });
    // Appends acknowledged as soon as written, one after another: nothing here yields to I/O.
    let largestJournal = 0;
    for (let i = 0; i < 4000; i++) {
      await store.append('s', message(`m${i}`, `${i} ${'z'.repeat(1500)}`));
      if (i % 100 === 0) largestJournal = Math.max(largestJournal, fs.statSync(journalPathOf(file)).size);
    }
    const snapshot = fs.statSync(file).size;
    await store.close();
    // About 6.5 MB appended: the snapshot took most of it while the loop ran, and the journal
    // (grown in whole MiB) never held much more than twice the threshold plus a checkpoint's time.
    assert.ok(snapshot > 4 << 20, `the snapshot is ${snapshot} bytes while the loop ran`);
    assert.ok(largestJournal <= 2 << 20, `the journal reached ${largestJournal} bytes`);
  });

  it('a writable open removes the temp files of a killed checkpoint; a read-only open leaves them', async () => {
    const s = await TapeStore.open(file);
    await s.append('s', message('m1', 'one'));
    await s.close();
    const leftovers = [`${file}.tmp-4242-abc`, `${journalPathOf(file)}.tmp-4242`, `${journalPathOf(file)}.damaged-20261130T0600Z.tmp-4242-abc`];
    for (const f of leftovers) fs.writeFileSync(f, 'half a checkpoint');
    const other = path.join(dir, 'other.tape.sqlite.tmp-1');
    fs.writeFileSync(other, 'not ours');
    const setAside = `${journalPathOf(file)}.damaged-20261130T0600Z`;
    fs.writeFileSync(setAside, 'bytes a repair set aside');
    const ro = await TapeStore.open(file, { readOnly: true });
    await ro.close();
    assert.ok(leftovers.every((f) => fs.existsSync(f)));
    const rw = await TapeStore.open(file);
    assert.deepStrictEqual(rw.openReport.removedTempFiles.sort(), leftovers.map((f) => path.basename(f)).sort());
    await rw.close();
    assert.ok(leftovers.every((f) => !fs.existsSync(f)));
    assert.ok(fs.existsSync(other), "another tape's files are left alone");
    assert.ok(fs.existsSync(setAside), 'what a repair set aside is kept');
  });

  it('a read-only open that keeps meeting checkpoints fails naming the writer pid; without a writer it reports damage', async function () {
    this.timeout(15_000);
    const s = await TapeStore.open(file, { groupCommitMs: 1 });
    await s.append('s', message('m1', 'one'));
    await s.checkpoint();
    const oldSnapshot = fs.readFileSync(file);
    await s.append('s', message('m2', 'two'));
    await s.checkpoint();
    await s.append('s', message('m3', 'three'));
    await s.checkpoint();
    await s.append('s', message('m4', 'four'));
    // Freeze the state a reader sees between a writer's snapshot rename and journal rotation.
    const journal = fs.readFileSync(journalPathOf(file));
    await s.close();
    const writer = spawn('sleep', ['30']);
    try {
      fs.writeFileSync(file, oldSnapshot);
      fs.writeFileSync(journalPathOf(file), journal);
      fs.writeFileSync(`${file}.lock`, String(writer.pid));
      await assert.rejects(
        TapeStore.open(file, { readOnly: true }),
        (e: Error) => e instanceof TapeFileError && new RegExp(`the writer \\(pid ${writer.pid}\\) checkpointed during each of 20 attempts`).test(e.message),
      );
    } finally {
      writer.kill();
    }
    fs.rmSync(`${file}.lock`);
    await assert.rejects(TapeStore.open(file, { readOnly: true }), /does not continue its snapshot/);
  });
});
