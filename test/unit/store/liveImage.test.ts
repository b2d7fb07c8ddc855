import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Database } from 'sql.js';
import { LiveImage } from '../../../src/store/liveImage';
import { createTapeDb } from '../../../src/store/schema';
import { readSnapshot } from '../../../src/store/snapshot';
import { loadSqlJs } from '../../../src/store/sqljs';
import { tempDir } from './helpers';

describe('LiveImage: checkpoint copies of the in-memory database file', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function openWithRoom(room: number): Promise<{ db: Database; image: Buffer }> {
    const SQL = await loadSqlJs();
    const file = path.join(dir, 't.tape.sqlite');
    const fresh = createTapeDb(SQL);
    fs.writeFileSync(file, fresh.export());
    fresh.close();
    return await readSnapshot(SQL, file, room);
  }

  const rows = async (bytes: Uint8Array) => {
    const db = new (await loadSqlJs()).Database(bytes);
    try {
      assert.strictEqual(db.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
      return db.exec('SELECT entry_id, payload FROM entries ORDER BY id')[0]?.values ?? [];
    } finally {
      db.close();
    }
  };

  const insert = (db: Database, from: number, n: number, bytes: number) => {
    db.run('BEGIN');
    for (let i = from; i < from + n; i++) {
      db.run("INSERT INTO entries (session_id, entry_id, kind, name, created_at, payload, meta) VALUES ('s', ?, 'event', 'e', 0, ?, '{}')", [
        i,
        'p'.repeat(bytes),
      ]);
    }
    db.run('COMMIT');
  };

  it('captures exactly what db.export() holds, page for page of content, from the live file', async () => {
    const { db, image } = await openWithRoom(8 << 20);
    const live = new LiveImage(image);
    insert(db, 1, 200, 500);
    const first = live.capture(db);
    assert.ok(first, 'the fast path holds for a database opened from a Buffer');
    assert.deepStrictEqual(await rows(first), await rows(db.export()));
    insert(db, 201, 50, 500); // later commits land in the same live file
    const second = live.capture(db);
    assert.ok(second);
    assert.strictEqual((await rows(second)).length, 250);
    db.close();
  });

  it('gives up for good, never returning a stale image, once the database outgrows its Buffer', async () => {
    const { db, image } = await openWithRoom(0);
    const live = new LiveImage(image);
    insert(db, 1, 400, 2000); // far past the Buffer: sql.js reallocates its file
    assert.strictEqual(live.capture(db), null);
    assert.strictEqual(live.capture(db), null);
    assert.strictEqual((await rows(db.export())).length, 400, 'export still sees everything');
    db.close();
  });

  it('returns null for a database that has no backing Buffer', async () => {
    const db = createTapeDb(await loadSqlJs());
    assert.strictEqual(new LiveImage(null).capture(db), null);
    db.close();
  });
});
