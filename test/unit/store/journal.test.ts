import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { encodeRecord, journalPathOf } from '../../../src/store/journal';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, journalRecords, message, tempDir } from './helpers';

describe('journal and recovery', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'j.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Simulates a crash: the store is dropped without close(), the lock stays behind with a dead pid. */
  async function crashAfter(fn: (s: TapeStore) => Promise<void>): Promise<void> {
    const s = await TapeStore.open(file, { groupCommitMs: 1 });
    await fn(s);
    fs.writeFileSync(`${file}.lock`, '999999999');
  }

  /** The journal's records: the file without the preallocated zeros after them. */
  function journalRecordBytes(): Buffer {
    const bytes = fs.readFileSync(journalPathOf(file));
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    return bytes.subarray(0, end);
  }

  it('replays acknowledged appends that never reached a checkpoint', async () => {
    await crashAfter(async (s) => {
      for (let i = 0; i < 20; i++) await s.append('s', message(`m${i}`, `text ${i}`));
    });
    const s = await TapeStore.open(file);
    assert.strictEqual(s.headEntryId('s'), 21);
    assert.strictEqual(s.openReport.replayedRecords, 21 - 1, 'the bootstrap anchor shares the first record');
    assert.strictEqual(s.openReport.droppedBytes, 0, 'the preallocated zeros after the records are not a torn tail');
    await s.close();
  });

  it('preallocates the journal ahead of its records, in whole chunks of zeros', async () => {
    await crashAfter(async (s) => {
      for (let i = 0; i < 3; i++) await s.append('s', message(`m${i}`, `text ${i}`), { durable: true });
    });
    const size = fs.statSync(journalPathOf(file)).size;
    assert.strictEqual(size % (1 << 20), 0, `journal size ${size} is a whole number of 1 MiB chunks`);
    assert.ok(journalRecordBytes().length < size);
  });

  it('drops a torn tail (short record, CRC mismatch) and keeps every whole record', async () => {
    await crashAfter(async (s) => {
      for (let i = 0; i < 5; i++) await s.append('s', message(`m${i}`, `text ${i}`));
    });
    const j = journalPathOf(file);
    const good = journalRecordBytes();
    fs.writeFileSync(j, Buffer.concat([good, encodeRecord(999, Buffer.from('[]')).subarray(0, 15)]));
    const torn = fingerprint(j);
    let s = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(s.headEntryId('s'), 6);
    assert.strictEqual(s.openReport.droppedBytes, 15);
    await s.close();
    assert.deepStrictEqual(fingerprint(j), torn, 'a read-only open leaves the torn tail alone');
    // Flip one byte inside the last good record's body: that record is dropped, the rest stay.
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3] ^= 0xff;
    fs.writeFileSync(j, flipped);
    s = await TapeStore.open(file);
    assert.strictEqual(s.headEntryId('s'), 5);
    await s.append('s', message('after', 'after the repair'));
    await s.close();
    s = await TapeStore.open(file);
    assert.strictEqual(s.getEntry('s', 6)?.payload.content, 'after the repair');
    await s.close();
  });

  it('never replays twice when a crash falls between snapshot rename and journal rotation', async () => {
    await crashAfter(async (s) => {
      for (let i = 0; i < 3; i++) await s.append('s', message(`m${i}`, `text ${i}`));
    });
    const s = await TapeStore.open(file);
    await s.append('s', message('m3', 'text 3'));
    const oldJournal = journalRecordBytes(); // what the journal holds when the snapshot is renamed
    await s.checkpoint();
    await s.append('s', message('m4', 'after checkpoint'));
    fs.writeFileSync(`${file}.lock`, '999999999');
    // Put back the journal as the rotation found it: records the snapshot contains, then the new one
    // (the rotated journal starts with the snapshot's last record, kept for followers: skip it).
    const rotated = journalRecords(file, s.tapeId);
    assert.deepStrictEqual(
      rotated.map((r) => r.seq),
      [4, 5],
    );
    const newRecords = journalRecordBytes().subarray(rotated[1].start);
    fs.writeFileSync(journalPathOf(file), Buffer.concat([oldJournal, newRecords]));
    const re = await TapeStore.open(file);
    assert.deepStrictEqual(
      re.entries('s').map((e) => e.entryId),
      [1, 2, 3, 4, 5, 6],
    );
    assert.strictEqual(re.getEntry('s', 6)?.payload.content, 'after checkpoint');
    await re.close();
  });

  it('checkpoints automatically once the journal passes the threshold, keeping appends made during the export', async () => {
    const s = await TapeStore.open(file, { checkpointBytes: 4096 });
    await Promise.all(Array.from({ length: 60 }, (_, i) => s.append('s', message(`m${i}`, 'y'.repeat(300)))));
    for (let waited = 0; journalRecords(file, s.tapeId).length >= 60 && waited < 2000; waited += 10) {
      await new Promise((r) => setTimeout(r, 10));
    }
    fs.writeFileSync(`${file}.lock`, '999999999'); // crash: no close(), so no checkpoint on close
    const re = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(re.headEntryId('s'), 61, 'every append is there after the crash');
    assert.ok(re.openReport.replayedRecords < 60, `the snapshot took records over (${re.openReport.replayedRecords} of 60 replayed)`);
    await re.close();
  });

  it('group commit: durable appends resolve only after an fdatasync, and appends in flight share them', async () => {
    const nodeFs = require('fs') as typeof fs;
    const real = nodeFs.fdatasync;
    let started = 0;
    let finished = 0;
    // A slow disk: every fdatasync takes 20 ms, so appends pile up behind the one in flight.
    (nodeFs as { fdatasync: unknown }).fdatasync = (fd: number, cb: (e: Error | null) => void) => {
      started++;
      real(fd, (e) => setTimeout(() => (finished++, cb(e)), 20));
    };
    try {
      const s = await TapeStore.open(file, { groupCommitMs: 1000 });
      await s.append('s', message('warm', 'up'), { durable: true });
      started = finished = 0;
      const seenAt: { durable: boolean; finished: number }[] = [];
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const durable = i % 2 === 0;
          return s.append('s', message(`m${i}`, `x${i}`), { durable }).then(() => seenAt.push({ durable, finished }));
        }),
      );
      assert.ok(
        seenAt.filter((x) => !x.durable).every((x) => x.finished === 0),
        'non-durable appends are acknowledged once written',
      );
      assert.ok(
        seenAt.filter((x) => x.durable).every((x) => x.finished >= 1),
        'durable appends wait for an fdatasync',
      );
      assert.ok(started <= 2, `20 durable appends in flight shared ${started} fdatasync calls`);
      await s.close();
    } finally {
      (nodeFs as { fdatasync: unknown }).fdatasync = real;
    }
  });

  it('refuses a journal damaged in the middle instead of dropping the records after the damage', async () => {
    await crashAfter(async (s) => {
      for (let i = 0; i < 6; i++) await s.append('s', message(`m${i}`, `text ${i}`), { durable: true });
    });
    const j = journalPathOf(file);
    const bytes = fs.readFileSync(j);
    bytes[45 + 20] ^= 0xff; // inside the first record's body
    fs.writeFileSync(j, bytes);
    const before = fingerprint(j);
    for (const readOnly of [true, false]) {
      await assert.rejects(
        TapeStore.open(file, { readOnly }),
        (e: Error) => e instanceof TapeFileError && e.message.includes(j) && /damaged at byte 45 .*bytes of records after the damage/.test(e.message),
      );
    }
    assert.deepStrictEqual(fingerprint(j), before, 'the journal is left exactly as it was');
  });

  /**
   * A crashed tape with three messages, checkpointed twice: returns the snapshot from after the
   * first checkpoint, which the journal (rotated by the second) no longer continues.
   */
  /**
   * A snapshot two checkpoints old: the journal now starts with the record of the last checkpoint
   * (kept by rotation), so record 2 is neither in it nor in the old snapshot.
   */
  async function checkpointedTwice(): Promise<Buffer> {
    let oldSnapshot = Buffer.alloc(0);
    await crashAfter(async (s) => {
      await s.append('s', message('m1', 'one'));
      await s.checkpoint();
      oldSnapshot = fs.readFileSync(file);
      await s.append('s', message('m2', 'two'));
      await s.checkpoint();
      await s.append('s', message('m3', 'three'));
      await s.checkpoint();
      await s.append('s', message('m4', 'four')); // only in the rotated journal
    });
    return oldSnapshot;
  }

  it('refuses a snapshot and journal that do not continue each other (an old snapshot with a newer journal)', async () => {
    fs.writeFileSync(file, await checkpointedTwice());
    await assert.rejects(
      TapeStore.open(file, { readOnly: true }),
      (e: Error) =>
        e instanceof TapeFileError && /does not continue its snapshot: the snapshot ends at record \d+, the journal goes on from record \d+/.test(e.message),
    );
  });

  it('a read-only open that meets a checkpoint half done (old snapshot, new journal) reads again', async () => {
    const oldSnapshot = await checkpointedTwice();
    const newSnapshot = fs.readFileSync(file);
    fs.writeFileSync(file, oldSnapshot);
    // The writer's rename lands a moment after the reader's first look.
    fs.writeFileSync(`${file}.next`, newSnapshot);
    setTimeout(() => fs.renameSync(`${file}.next`, file), 5);
    const r = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(
      r.entries('s').map((e) => e.payload.content ?? e.name),
      ['session/start', 'one', 'two', 'three', 'four'],
    );
    await r.close();
  });

  it('a snapshot opened with room to grow stays a sound database that checkpoints without the room', async () => {
    let s = await TapeStore.open(file);
    for (let i = 0; i < 50; i++) await s.append('s', message(`m${i}`, 'z'.repeat(2000)));
    await s.close();
    for (let round = 0; round < 2; round++) {
      s = await TapeStore.open(file);
      for (let i = 0; i < 50; i++) await s.append('s', message(`r${round}-${i}`, 'w'.repeat(2000)));
      await s.checkpoint();
      await s.close();
    }
    const bytes = fs.readFileSync(file);
    const { loadSqlJs } = await import('../../../src/store/sqljs');
    const db = new (await loadSqlJs()).Database(bytes);
    const [[pageSize], [pageCount], [check]] = ['page_size', 'page_count', 'integrity_check'].map((p) => db.exec(`PRAGMA ${p}`)[0].values[0]);
    assert.strictEqual(check, 'ok');
    assert.strictEqual(bytes.length, (pageSize as number) * (pageCount as number), 'the snapshot holds the pages and nothing after them');
    assert.strictEqual(db.exec("SELECT count(*) FROM entries WHERE session_id = 's'")[0].values[0][0], 151);
    db.close();
  });

  it('sql.js 1.17 export() keeps prepared statements usable (the store relies on it)', async () => {
    const s = await TapeStore.inMemory();
    await s.append('s', message('a', 'a'));
    s.snapshotBytes();
    await s.append('s', message('b', 'b'));
    assert.strictEqual(s.getEntry('s', 3)?.payload.content, 'b');
    const { loadSqlJs } = await import('../../../src/store/sqljs');
    const db = new (await loadSqlJs()).Database();
    db.run('CREATE TABLE t (x)');
    const stmt = db.prepare('INSERT INTO t VALUES (?)');
    stmt.run([1]);
    db.export();
    stmt.run([2]);
    assert.deepStrictEqual(db.exec('SELECT x FROM t')[0].values, [[1], [2]]);
    db.close();
  });
});
