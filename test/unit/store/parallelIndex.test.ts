import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { ParallelIndexer } from '../../../src/store/parallelIndex';
import { FTS_TABLE } from '../../../src/store/schema';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore, type OpenOptions } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { message, tempDir } from './helpers';

const WORDS = ['database', 'connection', 'failed', 'tape', 'search', 'index', 'worker', 'segment', 'merge', 'entry', 'token', 'budget'];
const QUERIES = ['database', 'tape search', 'seg*', '"connection failed"', 'worker OR merge', 'index NOT token', '数据库', 'ENOENT', 'w17', 'nothing'];

/** A varied session: messages in many words, CJK, tool calls and results, errors. */
function entriesOf(n: number, salt: number): NewEntry[] {
  return Array.from({ length: n }, (_, i): NewEntry => {
    const k = i + salt;
    const text = Array.from({ length: 5 + (k % 40) }, (_, j) => WORDS[(k * 7 + j * j) % WORDS.length]).join(' ');
    if (k % 11 === 0) return message(`m${k}`, `数据库连接失败 ${text}`, { orderSeq: k });
    if (k % 7 === 0)
      return {
        kind: 'tool_result',
        name: 'read_file',
        payload: { messageId: `m${k}`, toolCallId: `t${k}`, status: 'error', output: `ENOENT w${k % 50} ${text}` },
      };
    if (k % 13 === 0) return { kind: 'error', name: 'error/provider', payload: { kind: 'provider', message: `rate limited ${text}` } };
    return message(`m${k}`, `${text} w${k % 50}`, { orderSeq: k, role: k % 2 ? 'assistant' : 'user' });
  });
}

const allHits = (store: TapeStore): unknown => QUERIES.map((q) => store.search(q, { limit: 1000 }));

describe('full-text indexing in a worker thread (parallelIndex.ts)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * The same appends into a tape indexed in a worker and one indexed in place; `between` runs on
   * both after each batch. Returns both stores, open.
   */
  async function twins(batches: NewEntry[][], options: OpenOptions = {}, between?: (s: TapeStore, batch: number) => Promise<unknown> | unknown) {
    const worker = await TapeStore.open(path.join(dir, 'worker.tape.sqlite'), { ...options, indexInWorker: true });
    const inPlace = await TapeStore.open(path.join(dir, 'inplace.tape.sqlite'), options);
    for (const [b, batch] of batches.entries()) {
      for (const s of [worker, inPlace]) {
        // Several sessions, so deletes and per-session searches have something to tell apart.
        await s.appendMany(`s${b % 3}`, batch);
        await between?.(s, b);
      }
    }
    return { worker, inPlace };
  }

  it('a tape indexed in a worker answers every search as one indexed in place, before and after reopening', async () => {
    const batches = Array.from({ length: 30 }, (_, b) => entriesOf(20 + ((b * 37) % 120), b * 1000));
    // Searches in between make the worker's index join the tape's many times, at every level.
    const { worker, inPlace } = await twins(batches, {}, (s, b) => (b % 4 === 3 ? s.search('database') : undefined));
    assert.deepStrictEqual(allHits(worker), allHits(inPlace));
    assert.deepStrictEqual(
      ['s0', 's1', 's2'].map((id) => worker.search('tape', { sessionId: id, limit: 1000 })),
      ['s0', 's1', 's2'].map((id) => inPlace.search('tape', { sessionId: id, limit: 1000 })),
    );
    await worker.close();
    await inPlace.close();
    // The close checkpoint wrote the worker's index into the snapshot.
    const [w, p] = await Promise.all(
      [path.join(dir, 'worker.tape.sqlite'), path.join(dir, 'inplace.tape.sqlite')].map((f) => TapeStore.open(f, { readOnly: true })),
    );
    assert.deepStrictEqual(allHits(w), allHits(p));
    assert.ok(
      (allHits(w) as unknown[][]).some((hits) => hits.length > 100),
      'the searches find many rows',
    );
    await w.close();
    await p.close();
  });

  it('checkpoints taken while appending hold the index of every row they hold', async () => {
    const batches = Array.from({ length: 12 }, (_, b) => entriesOf(150, b * 1000));
    const { worker, inPlace } = await twins(batches, { checkpointBytes: 64 << 10 });
    await worker.close();
    await inPlace.close();
    const [w, p] = await Promise.all(
      [path.join(dir, 'worker.tape.sqlite'), path.join(dir, 'inplace.tape.sqlite')].map((f) => TapeStore.open(f, { readOnly: true })),
    );
    assert.deepStrictEqual(allHits(w), allHits(p));
    await w.close();
    await p.close();
  });

  it('deleting a session leaves exactly the other sessions searchable, rows still in the worker too', async () => {
    const batches = Array.from({ length: 9 }, (_, b) => entriesOf(60, b * 1000));
    const { worker, inPlace } = await twins(batches);
    for (const s of [worker, inPlace]) await s.deleteSession('s1');
    const more = entriesOf(80, 50_000);
    for (const s of [worker, inPlace]) await s.appendMany('s1', more);
    assert.deepStrictEqual(allHits(worker), allHits(inPlace));
    await worker.close();
    await inPlace.close();
  });

  describe('the worker only speeds things up', () => {
    /** Indexes `rows` through an indexer and returns what a search of each query finds. */
    async function indexWith(indexer: ParallelIndexer, rows: NewEntry[]): Promise<unknown> {
      const SQL = await loadSqlJs();
      const db = new SQL.Database();
      db.run(FTS_TABLE);
      rows.forEach((e, i) => indexer.add(i + 1, e.kind, e.name, Buffer.from(JSON.stringify(e.payload))));
      indexer.drainInto(db);
      const found = ['database', 'ENOENT', 'seg*'].map(
        (q) => db.exec('SELECT docid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY docid', [q])[0]?.values,
      );
      db.close();
      return found;
    }
    const rows = entriesOf(300, 7);
    let expected: unknown;

    it('without its script, rows are indexed on the calling thread', async () => {
      const indexer = new ParallelIndexer({ script: path.join(__dirname, 'no-such-worker.js') });
      assert.strictEqual(indexer.active, false);
      expected = await indexWith(indexer, rows);
      assert.ok((expected as unknown[][]).every((ids) => ids.length > 10));
    });

    it('with its script, the worker does the indexing and the result is the same', async () => {
      const indexer = new ParallelIndexer();
      assert.strictEqual(indexer.active, true, 'the compiled worker script is beside parallelIndex.js');
      assert.deepStrictEqual(await indexWith(indexer, rows), expected);
      assert.strictEqual(indexer.active, true, 'the worker answered');
      indexer.dispose();
    });

    it('a worker that fails, or stops answering, has its rows indexed on the calling thread', async () => {
      const failing = path.join(dir, 'failing-worker.js');
      fs.writeFileSync(
        failing,
        "const { workerData } = require('worker_threads'); const c = new Int32Array(workerData.state); Atomics.store(c, 0, -1); Atomics.notify(c, 0);",
      );
      const silent = path.join(dir, 'silent-worker.js');
      fs.writeFileSync(silent, "require('worker_threads').parentPort.on('message', () => {});");
      for (const script of [failing, silent]) {
        const indexer = new ParallelIndexer({ script, stallMs: 300 });
        assert.strictEqual(indexer.active, true);
        const t0 = Date.now();
        assert.deepStrictEqual(await indexWith(indexer, rows), expected, script);
        assert.ok(Date.now() - t0 < 5_000, `gave up on ${path.basename(script)} within its stall limit`);
        assert.strictEqual(indexer.active, false);
      }
    });
  });
});
