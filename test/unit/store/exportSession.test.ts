import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { exportJsonl, exportSession, importTapeFile, openTapeFile } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { message, tempDir } from './helpers';

describe('exportSession: one session of an open tape to a file of its own', () => {
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = tempDir();
    store = await TapeStore.open(path.join(dir, 'src.tape.sqlite'));
    await store.append('a', message('a1', 'first of a'));
    await store.append('b', message('b1', 'only b'));
    await store.append('a', message('a2', 'second of a', { role: 'assistant', orderSeq: 2 }));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const suffix of ['.tape.jsonl', '.tape.sqlite']) {
    it(`writes exactly that session's entries to a ${suffix}, which opens as a tape`, async () => {
      const dst = path.join(dir, `a${suffix}`);
      assert.deepStrictEqual(await exportSession(store, 'a', dst), { entries: 3 });
      const copy = await openTapeFile(dst, { readOnly: true });
      try {
        assert.deepStrictEqual(
          copy.sessions().map((s) => s.sessionId),
          ['a'],
        );
        assert.deepStrictEqual(copy.rawEntries('a'), store.rawEntries('a'), 'entries byte for byte, ids and keys kept');
      } finally {
        await copy.close();
      }
    });
  }

  it('refuses an existing destination unless told to replace it, and then replaces it whole', async () => {
    const dst = path.join(dir, 'a.tape.jsonl');
    fs.writeFileSync(dst, 'precious');
    await assert.rejects(exportSession(store, 'a', dst), /already exists/);
    assert.strictEqual(fs.readFileSync(dst, 'utf8'), 'precious');
    await exportSession(store, 'a', dst, { replace: true });
    assert.strictEqual(fs.readFileSync(dst, 'utf8').split('\n').filter(Boolean).length, 3);
  });

  it('refuses an unknown session, a name that is not a tape file, and a .tape.sqlite with a journal beside it, writing nothing', async () => {
    await assert.rejects(exportSession(store, 'nope', path.join(dir, 'x.tape.jsonl')), /no session "nope"/);
    await assert.rejects(exportSession(store, 'a', path.join(dir, 'x.json')), /not a tape file name/);
    const dst = path.join(dir, 'old.tape.sqlite');
    fs.writeFileSync(`${dst}.tapelog`, 'journal of an older tape');
    await assert.rejects(exportSession(store, 'a', dst, { replace: true }), /has a journal/);
    assert.ok(!fs.readdirSync(dir).some((f) => f.includes('.tmp-')), 'no temp file left');
    assert.ok(!fs.existsSync(dst) && !fs.existsSync(path.join(dir, 'x.tape.jsonl')));
  });
});

describe('importTapeFile: the sessions of a tape file added to an open tape', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('adds new sessions with their ids, keys and payloads, skips those already there, and leaves the source as it was', async () => {
    const src = await TapeStore.open(path.join(dir, 'src.tape.sqlite'));
    await src.append('a', message('a1', 'from the file', { key: 'k-a1' }));
    await src.append('b', message('b1', 'also from the file'));
    await exportJsonl(path.join(dir, 'src.tape.sqlite'), path.join(dir, 'src.tape.jsonl')).catch(async () => {
      await src.close();
      throw new Error('export failed');
    });
    const expected = src.rawEntries('a');
    await src.close();
    const before = fs.readFileSync(path.join(dir, 'src.tape.jsonl'));

    const dst = await TapeStore.open(path.join(dir, 'dst.tape.sqlite'));
    try {
      await dst.append('b', message('mine', 'the destination has its own b'));
      assert.deepStrictEqual(await importTapeFile(dst, path.join(dir, 'src.tape.jsonl')), { imported: [{ sessionId: 'a', entries: 2 }], skipped: ['b'] });
      const got = dst.rawEntries('a');
      assert.deepStrictEqual(
        got.map(({ entryId, kind, name, provenanceKey, payload }) => ({ entryId, kind, name, provenanceKey, payload: JSON.parse(payload) })),
        expected.map(({ entryId, kind, name, provenanceKey, payload }) => ({ entryId, kind, name, provenanceKey, payload: JSON.parse(payload) })),
      );
      assert.strictEqual(got[1].createdAt, expected[1].createdAt);
      assert.strictEqual(dst.entries('b')[1].payload.content, 'the destination has its own b');
      assert.deepStrictEqual(
        await importTapeFile(dst, path.join(dir, 'src.tape.jsonl')),
        { imported: [], skipped: ['a', 'b'] },
        'a second import adds nothing',
      );
    } finally {
      await dst.close();
    }
    assert.deepStrictEqual(fs.readFileSync(path.join(dir, 'src.tape.jsonl')), before);
  });
});
