import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Database } from 'sql.js';
import { TapeStoreFailedError } from '../../../src/store/errors';
import { TapeStore } from '../../../src/store/tapeStore';
import { TapeValidationError } from '../../../src/tape/entry';
import { MAX_ENTRY_JSON_BYTES } from '../../../src/tape/entrySize';
import { journalRecords, message, tempDir } from './helpers';

const dbOf = (store: TapeStore): Database => (store as unknown as { c: { db: Database } }).c.db;
const ids = (s: TapeStore): string[] => s.entries('s').map((e) => `${e.entryId}:${String(e.payload.messageId ?? e.name)}`);

/**
 * Runs `fn` with the database unable to grow (PRAGMA max_page_count, per connection): a write that
 * needs a new page fails with SQLITE_FULL, which, like running out of memory (SQLITE_NOMEM, whose
 * limit cannot be lifted again in a process), makes SQLite roll back the whole transaction itself.
 */
async function withDatabaseFull<T>(db: Database, fn: () => T | Promise<T>): Promise<T> {
  const pragma = (name: string): number => db.exec(`PRAGMA ${name}`)[0].values[0][0] as number;
  const max = pragma('max_page_count');
  db.exec(`PRAGMA max_page_count=${pragma('page_count')}`);
  try {
    return await fn();
  } finally {
    db.exec(`PRAGMA max_page_count=${max}`);
  }
}

describe('appends that fail', function () {
  this.timeout(20_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'f.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an append that SQLite rolls back itself (database full) rejects with that error, journals nothing, and the store goes on', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m1', 'kept'));
    await store.search('kept'); // commits: the next append opens its own transaction
    const records = journalRecords(file, store.tapeId).length;
    await withDatabaseFull(dbOf(store), () =>
      assert.rejects(store.append('s', message('m2', 'x '.repeat(100_000))), (e: Error) => /database or disk is full/.test(e.message)),
    );
    assert.strictEqual(journalRecords(file, store.tapeId).length, records, 'no journal record for the failed append');
    await store.append('s', message('m3', 'after'));
    await store.checkpoint();
    await store.close();
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(ids(re), ['1:session/start', '2:m1', '3:m3']);
    await re.close();
  });

  it('a failed unit that rolls back appends already journaled fails the store, which keeps them on disk', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m1', 'journaled')); // acknowledged; its transaction is still open
    await withDatabaseFull(dbOf(store), () =>
      assert.rejects(store.append('s', message('m2', 'x '.repeat(100_000))), (e: Error) => /database or disk is full/.test(e.message)),
    );
    await assert.rejects(store.append('s', message('m3', 'refused')), (e: Error) => e instanceof TapeStoreFailedError);
    await assert.rejects(store.checkpoint(), (e: Error) => e instanceof TapeStoreFailedError, 'no snapshot without m1');
    await store.close();
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(ids(re), ['1:session/start', '2:m1']);
    await re.close();
  });

  it('a commit that SQLite rolls back itself (database full) fails the store; reopening recovers the acknowledged append', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m1', Array.from({ length: 50_000 }, (_, i) => `w${i}`).join(' ')));
    // The row is in; indexing its words at commit needs pages the database may no longer take.
    await withDatabaseFull(dbOf(store), () => assert.throws(() => store.search('w1'), /database or disk is full/));
    await assert.rejects(store.checkpoint(), (e: Error) => e instanceof TapeStoreFailedError && /rolled back in memory/.test(e.message));
    await store.close();
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(ids(re), ['1:session/start', '2:m1']);
    await re.close();
  });

  it('an entry whose JSON text is over the size limit is refused before anything is written, even when only its escapes take it over', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m1', 'kept'));
    const records = journalRecords(file, store.tapeId).length;
    const tooLong = 'x'.repeat(MAX_ENTRY_JSON_BYTES + 1);
    await assert.rejects(
      store.append('s', message('m2', tooLong)),
      (e: Error) => e instanceof TapeValidationError && /at least 16 MiB.*at most 16 MiB/.test(e.message),
    );
    // Half the limit in characters, twice it as JSON: each quote is written \".
    const quotes = '"'.repeat(MAX_ENTRY_JSON_BYTES / 2 + 1);
    await assert.rejects(
      store.appendMany('s', [message('m3', 'same transaction'), message('m4', quotes)]),
      (e: Error) => e instanceof TapeValidationError && /take 16 MiB as JSON; one entry holds at most 16 MiB/.test(e.message),
    );
    assert.strictEqual(journalRecords(file, store.tapeId).length, records);
    await store.append('s', message('m5', 'after'));
    assert.deepStrictEqual(ids(store), ['1:session/start', '2:m1', '3:m5']);
    await store.close();
  });
});
