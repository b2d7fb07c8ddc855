import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { message, tempDir, until } from './helpers';

const SECRET = 'zebracorn4417';

/** What is on disk for a tape right now, as a reader of the raw files would find it. */
const onDisk = (file: string): string =>
  [file, `${file}.tapelog`]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');

describe('deleting a session: the one physical delete', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 't.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function twoSessions(): Promise<TapeStore> {
    const store = await TapeStore.open(file);
    await store.append('keep', message('k1', 'the kept conversation'));
    await store.append('gone', message('g1', `a private note ${SECRET}`));
    await store.append('gone', message('g2', `more about ${SECRET}`, { role: 'assistant', orderSeq: 2 }));
    await store.append('keep', message('k2', 'still here', { role: 'assistant', orderSeq: 2 }), { durable: true });
    return store;
  }

  it('removes the rows, their words from the search index, and every byte of them from the files on disk', async () => {
    const store = await twoSessions();
    try {
      assert.ok(onDisk(file).includes(SECRET), 'the journal holds it before');
      assert.strictEqual(store.search(SECRET).length, 2);
      assert.deepStrictEqual(await store.deleteSession('gone'), { entries: 3 });
      assert.deepStrictEqual(
        store.sessions().map((s) => s.sessionId),
        ['keep'],
      );
      assert.strictEqual(store.headEntryId('gone'), 0);
      assert.deepStrictEqual(store.search(SECRET), []);
      assert.deepStrictEqual(
        store.search('kept').map((h) => h.entryId),
        [2],
        'the rebuilt index still finds the rest',
      );
      assert.ok(!onDisk(file).includes(SECRET), 'no trace in the snapshot or the journal');
      // Resolved means on disk: a copy of the files now (as after a crash) opens without the session.
      fs.copyFileSync(file, path.join(dir, 'copy.tape.sqlite'));
      fs.copyFileSync(`${file}.tapelog`, path.join(dir, 'copy.tape.sqlite.tapelog'));
      const copy = await TapeStore.open(path.join(dir, 'copy.tape.sqlite'), { readOnly: true });
      assert.deepStrictEqual(
        copy.sessions().map((s) => s.sessionId),
        ['keep'],
      );
      await copy.close();
      // The session id can start again, from entry 1.
      assert.strictEqual((await store.append('gone', message('n1', 'new'))).entry.entryId, 2);
      assert.strictEqual(store.headEntryId('keep'), 3);
    } finally {
      await store.close();
    }
    const reopened = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(
      reopened.entries('gone').map((e) => e.payload.content ?? null),
      [null, 'new'],
    );
    await reopened.close();
  });

  it('refuses an unknown session and a read-only store, changing nothing', async () => {
    const store = await twoSessions();
    await assert.rejects(store.deleteSession('nope'), /no session "nope"/);
    const reader = await TapeStore.open(file, { readOnly: true });
    await assert.rejects(reader.deleteSession('gone'), /read-only/);
    await reader.close();
    assert.strictEqual(store.headEntryId('gone'), 3);
    await store.close();
  });

  it('a reader following the tape reloads it: the session is gone there too, and appends go on arriving', async () => {
    const store = await twoSessions();
    const reader = await TapeStore.open(file, { readOnly: true });
    const follow = reader.follow();
    try {
      await store.deleteSession('gone');
      await store.append('keep', message('k3', 'after the delete', { orderSeq: 3 }), { durable: true });
      await until(() => reader.headEntryId('keep') === 4, 'the follower to read the append');
      assert.deepStrictEqual(
        reader.sessions().map((x) => x.sessionId),
        ['keep'],
      );
      assert.deepStrictEqual(reader.search(SECRET), []);
    } finally {
      follow.dispose();
      await reader.close();
      await store.close();
    }
  });
});
