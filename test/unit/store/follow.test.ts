import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeStore, type AppendEvent } from '../../../src/store/tapeStore';
import { message, tempDir, until } from './helpers';

const summary = (s: TapeStore): string[] => s.entries(null).map((e) => `${e.sessionId}#${e.entryId} ${e.payload.content ?? e.name}`);

describe('following a tape another process writes', () => {
  let dir: string;
  let file: string;
  let writer: TapeStore;
  let reader: TapeStore;
  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir, 'f.tape.sqlite');
    writer = await TapeStore.open(file, { groupCommitMs: 1 });
    await writer.append('a', message('m0', 'before the reader'));
    reader = await TapeStore.open(file, { readOnly: true });
  });
  afterEach(async () => {
    await reader.close();
    await writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('applies each journaled transaction incrementally, across checkpoints, with the same events and no reload', async function () {
    this.timeout(10_000);
    const events: AppendEvent[] = [];
    reader.onDidAppend((e) => events.push(e));
    reader.follow();
    const generation = reader.generation();
    assert.strictEqual(reader.foldRows('a', 0).length, 2, 'fold rows cached before the writer goes on');
    await writer.append('a', message('m1', 'followed text'));
    await writer.appendMany('b', [message('x', 'x'), message('y', 'y')]);
    await until(() => events.length === 2, 'two events');
    assert.deepStrictEqual(events, [
      { sessionId: 'a', firstEntryId: 3, lastEntryId: 3 },
      { sessionId: 'b', firstEntryId: 1, lastEntryId: 3 },
    ]);
    // A checkpoint rotates the journal while appends go on; the reader keeps following.
    const during = writer.append('a', message('m2', 'during the checkpoint'));
    await writer.checkpoint();
    await during;
    for (let i = 3; i < 20; i++) await writer.append('a', message(`m${i}`, `after ${i}`));
    await writer.checkpoint();
    await writer.append('b', message('z', 'last'));
    await until(() => reader.headEntryId('b') === 4 && reader.headEntryId('a') === 21, 'every entry');
    assert.strictEqual(reader.generation(), generation, 'no reload');
    assert.deepStrictEqual(summary(reader), summary(writer));
    assert.deepStrictEqual(reader.foldRows('a', 0), writer.foldRows('a', 0), 'cached fold rows extended in order');
    assert.deepStrictEqual(
      reader.search('followed').map((h) => h.entryId),
      [3],
      'followed rows are searchable',
    );
    const covered = new Set(
      events.flatMap((e) => Array.from({ length: e.lastEntryId - e.firstEntryId + 1 }, (_, i) => `${e.sessionId}#${e.firstEntryId + i}`)),
    );
    assert.strictEqual(covered.size, 19 + 3 + 1, 'every followed entry announced once');
  });

  it('reloads when records were checkpointed before it could read them, and announces what grew', async () => {
    for (let i = 1; i <= 5; i++) await writer.append('a', message(`m${i}`, `unseen ${i}`));
    await writer.checkpoint();
    const events: AppendEvent[] = [];
    reader.onDidAppend((e) => events.push(e));
    const generation = reader.generation();
    reader.follow();
    await until(() => events.length > 0, 'the reload');
    assert.strictEqual(reader.generation(), generation + 1);
    assert.deepStrictEqual(events, [{ sessionId: 'a', firstEntryId: 3, lastEntryId: 7 }]);
    assert.deepStrictEqual(summary(reader), summary(writer));
    await writer.append('a', message('m6', 'after the reload'));
    await until(() => reader.headEntryId('a') === 8, 'following after the reload');
    assert.strictEqual(reader.generation(), generation + 1);
  });

  it('only read-only file tapes follow', async () => {
    assert.throws(() => writer.follow(), /only read-only file tapes follow/);
  });
});
