import * as assert from 'assert';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFullError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { readSnapshot } from '../../../src/store/snapshot';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { message, tempDir } from './helpers';

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Bytes read from files while `run` runs, through fs.readSync and FileHandle.read (what a store reads with). */
async function bytesReadDuring<T>(run: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  // The module object itself: what the store's imports read through.
  const node = require('fs') as { readSync: (...a: unknown[]) => number };
  const probe = await fs.promises.open(__filename, 'r');
  const handle = Object.getPrototypeOf(probe) as { read: (...a: unknown[]) => Promise<{ bytesRead: number }> };
  await probe.close();
  const [readSync, read] = [node.readSync, handle.read];
  let bytes = 0;
  node.readSync = (...args: unknown[]) => {
    const n = readSync(...args);
    bytes += n;
    return n;
  };
  handle.read = async function (this: unknown, ...args: unknown[]) {
    const r = await read.apply(this, args);
    bytes += r.bytesRead;
    return r;
  };
  try {
    return { value: await run(), bytes };
  } finally {
    node.readSync = readSync;
    handle.read = read;
  }
}

describe('a file tape read page by page (PagedFile)', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 't.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** 40 sessions of 20 messages of about 12 KB each: a tape of about 10 MB. */
  async function bigTape(): Promise<void> {
    const w = await TapeStore.open(file);
    for (let s = 0; s < 40; s++) {
      const text = (i: number) => `session ${s} message ${i} ${'lorem ipsum dolor sit amet '.repeat(450)}`;
      await w.appendMany(
        `s${s}`,
        Array.from({ length: 20 }, (_, i) => message(`m${i}`, text(i), { orderSeq: i + 1 })),
      );
    }
    await w.checkpoint();
    await w.close();
  }

  it('opening a tape and reading one session reads a small part of the snapshot, not the file', async () => {
    await bigTape();
    await loadSqlJs();
    const size = fs.statSync(file).size;
    assert.ok(size > 8 << 20, `the tape is ${size} bytes`);
    const { value: entries, bytes } = await bytesReadDuring(async () => {
      const store = await TapeStore.open(file, { readOnly: true });
      try {
        return store.entries('s17');
      } finally {
        await store.close();
      }
    });
    assert.strictEqual(entries.length, 21);
    assert.match(String(entries[20].payload.content), /^session 17 message 19 /);
    assert.ok(bytes < size / 10, `opening the tape and reading one session read ${bytes} of ${size} bytes`);
  });

  it('a checkpoint writes a new snapshot of the old one plus the pages written, and a reader of the old one keeps reading it whole', async () => {
    await bigTape();
    const reader = await TapeStore.open(file, { readOnly: true });
    const before = reader.entries('s3').map((e) => e.payload.content);
    const w = await TapeStore.open(file);
    await w.append('s3', message('late', 'written after the reader opened'));
    await w.append('new', message('n1', 'a new session'));
    await w.checkpoint();
    await w.close();
    // The reader still holds the snapshot it opened (renamed over, not changed in place).
    assert.deepStrictEqual(
      reader.entries('s3').map((e) => e.payload.content),
      before,
    );
    assert.strictEqual(reader.entries('s39').length, 21);
    await reader.close();
    // The new snapshot holds everything, without its journal.
    fs.rmSync(journalPathOf(file), { force: true });
    const again = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(again.getEntry('s3', 22)?.payload.content, 'written after the reader opened');
    assert.strictEqual(again.getEntry('new', 2)?.payload.content, 'a new session');
    assert.deepStrictEqual(
      again
        .entries('s3')
        .slice(0, 21)
        .map((e) => e.payload.content),
      before,
    );
    await again.close();
  });

  it('a checkpoint that fails before its rename leaves the snapshot as it was and keeps its pages for the next one', async () => {
    const w = await TapeStore.open(file);
    await w.append('s', message('m1', 'first'));
    await w.checkpoint();
    await w.close();
    const SQL = await loadSqlJs();
    const { db, file: paged } = readSnapshot(SQL, file);
    try {
      db.run("INSERT INTO tape_meta (key, value) VALUES ('probe', 'one')");
      const nonce = Buffer.from('nonce-0123456789abcdef', 'latin1');
      db.run("INSERT OR REPLACE INTO tape_meta (key, value) VALUES ('image_nonce', ?)", [nonce.toString('latin1')]);
      const size = (db.exec('PRAGMA page_count')[0].values[0][0] as number) * paged.pageSize;
      const patch = paged.capture(size, nonce);
      assert.ok(patch, 'the pages written are found');
      const hash = sha256(file);
      await assert.rejects(
        patch.write(file, () => {
          throw new Error('refused at the last moment');
        }),
        /refused at the last moment/,
      );
      assert.strictEqual(sha256(file), hash);
      assert.deepStrictEqual(
        fs.readdirSync(dir).filter((n) => n.includes('.tmp-')),
        [],
      );
      // The pages are still there, for reads and for the next checkpoint.
      assert.strictEqual(db.exec("SELECT value FROM tape_meta WHERE key = 'probe'")[0].values[0][0], 'one');
      const nonce2 = Buffer.from('nonce-fedcba9876543210', 'latin1');
      db.run("INSERT OR REPLACE INTO tape_meta (key, value) VALUES ('image_nonce', ?)", [nonce2.toString('latin1')]);
      const again = paged.capture(size, nonce2);
      assert.ok(again);
      await again.write(file, () => undefined);
    } finally {
      db.close();
      paged.close();
    }
    const { db: reread, file: rereadFile } = readSnapshot(SQL, file);
    try {
      assert.strictEqual(reread.exec("SELECT value FROM tape_meta WHERE key = 'probe'")[0].values[0][0], 'one');
    } finally {
      reread.close();
      rereadFile.close();
    }
  });

  it('a checkpoint refuses a snapshot that another program replaced (a link to /dev/zero) instead of copying it', async () => {
    const w = await TapeStore.open(file);
    await w.append('s', message('m1', 'kept in the journal'));
    fs.renameSync(file, `${file}.moved`);
    fs.symlinkSync('/dev/zero', file);
    await assert.rejects(w.checkpoint(), /was replaced by another program while open for writing; nothing was checkpointed/);
    assert.strictEqual(fs.lstatSync(file).isSymbolicLink(), true);
    fs.rmSync(file);
    fs.renameSync(`${file}.moved`, file);
    await w.close();
    const r = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(r.getEntry('s', 2)?.payload.content, 'kept in the journal');
    await r.close();
  });

  it('after a session delete (VACUUM truncates the file) checkpoints take a whole image, and nothing is lost', async () => {
    await bigTape();
    const w = await TapeStore.open(file);
    await w.deleteSession('s5');
    await w.append('s6', message('after', 'appended after the delete'));
    await w.checkpoint();
    await w.close();
    fs.rmSync(journalPathOf(file), { force: true });
    const r = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(r.headEntryId('s5'), 0);
    assert.strictEqual(r.getEntry('s6', 22)?.payload.content, 'appended after the delete');
    assert.strictEqual(r.entries('s7').length, 21);
    await r.close();
  });

  it('an append that could take the tape past its size limit is refused before anything is written, and a writer is told near it', async () => {
    const told: string[] = [];
    const maxBytes = 4 << 20;
    const w = await TapeStore.open(file, { maxBytes, onNearlyFull: (m) => told.push(m) });
    await w.append('s', message('m1', 'small'));
    assert.deepStrictEqual(told, []);
    const big = 'x'.repeat(40_000);
    let refused: unknown;
    for (let i = 0; i < 400 && refused === undefined; i++) {
      await w.append('s', message(`b${i}`, `${i} ${big}`)).catch((e: unknown) => (refused = e));
    }
    assert.ok(refused instanceof TapeFullError, String(refused));
    assert.match((refused as Error).message, /could pass the 4\.0 MiB a tape can hold; nothing was written/);
    assert.strictEqual(told.length, 1, 'told once');
    assert.match(told[0], /a tape can hold; appends stop at the limit/);
    const head = w.headEntryId('s');
    // Nothing of the refused append is on the tape or in its journal.
    await w.close();
    const r = await TapeStore.open(file, { readOnly: true, maxBytes });
    assert.strictEqual(r.headEntryId('s'), head);
    await r.close();
    assert.ok(fs.statSync(file).size <= maxBytes, 'what was written opens under the same limit');
  });
});
