import * as assert from 'assert';
import fc from 'fast-check';
import type { Database, SqlJsStatic } from 'sql.js';
import { adoptIndex } from '../../../src/store/indexSegments';
import { FTS_TABLE } from '../../../src/store/schema';
import { loadSqlJs } from '../../../src/store/sqljs';

// A few common words and many rare ones, so doclists of every length and prefixes shared by many terms.
const WORDS = ['the', 'tape', 'test', 'tests', 'tester', 'error', 'entry', 'en', 'a', ...Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}`)];
const QUERIES = [
  'the',
  'tape',
  'test*',
  'te*',
  'e*',
  'w1*',
  '"the tape"',
  '"test error"',
  'the AND tape',
  'tape OR error',
  'the NOT error',
  'tape NEAR/2 test',
  'w2a',
  'nothing',
];

const doc = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...WORDS.slice(0, 9)) }, { weight: 1, arbitrary: fc.constantFrom(...WORDS) }), {
  minLength: 0,
  maxLength: 200,
});

function ftsDb(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  db.run('PRAGMA page_size = 4096');
  db.run(FTS_TABLE);
  return db;
}

function index(db: Database, rows: readonly [number, string][]): void {
  db.run('BEGIN');
  const put = db.prepare('INSERT INTO entries_fts (docid, text) VALUES (?, ?)');
  for (const r of rows) put.run(r);
  put.free();
  db.run('COMMIT');
}

/** Every query's matching docids with matchinfo('pcnalx'), and the index's statistics rows. */
function answers(db: Database): unknown {
  const rows = (sql: string, params: (string | number)[] = []): unknown[] =>
    (db.exec(sql, params)[0]?.values ?? []).map((r) => r.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
  return {
    queries: QUERIES.map((q) => rows("SELECT docid, matchinfo(entries_fts, 'pcnalx') FROM entries_fts WHERE entries_fts MATCH ? ORDER BY docid", [q])),
    sizes: rows('SELECT docid, size FROM entries_fts_docsize ORDER BY docid'),
    totals: rows('SELECT value FROM entries_fts_stat WHERE id = 0'),
  };
}

describe('a search index moved between databases (indexSegments.ts)', () => {
  let SQL: SqlJsStatic;
  before(async () => (SQL = await loadSqlJs()));

  it('an index grown from segments built elsewhere answers every query exactly as one indexed in place', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(
        // Rounds of rows; each round is indexed in place in `direct`, and in `adopted` either in
        // place too or in a separate database whose segments are then moved in.
        fc.array(fc.record({ docs: fc.array(doc, { minLength: 1, maxLength: 120 }), elsewhere: fc.boolean(), commits: fc.integer({ min: 1, max: 20 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.boolean(),
        (rounds, optimize) => {
          const direct = ftsDb(SQL);
          const adopted = ftsDb(SQL);
          let worker = ftsDb(SQL);
          try {
            let docid = 0;
            for (const round of rounds) {
              const rows = round.docs.map((words): [number, string] => [++docid, words.join(' ')]);
              // Several commits, so the round's index is several segments, merged at 16.
              const per = Math.ceil(rows.length / round.commits);
              for (let i = 0; i < rows.length; i += per) {
                index(direct, rows.slice(i, i + per));
                index(round.elsewhere ? worker : adopted, rows.slice(i, i + per));
              }
              if (round.elsewhere) {
                // As the worker does: the image of its index, then a new database for the next rows.
                const image = worker.export();
                worker.close();
                worker = ftsDb(SQL);
                adoptIndex(adopted, image);
              }
            }
            assert.deepStrictEqual(answers(adopted), answers(direct));
            // FTS4's own merging reads the moved segments as its own.
            if (optimize) {
              adopted.run("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')");
              direct.run("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')");
              assert.deepStrictEqual(answers(adopted), answers(direct));
            }
          } finally {
            direct.close();
            adopted.close();
            worker.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('segments of many blocks, interior nodes and all, move whole', () => {
    const direct = ftsDb(SQL);
    const adopted = ftsDb(SQL);
    const worker = ftsDb(SQL);
    // Long doclists and many terms: segments several levels deep.
    const rows = Array.from({ length: 3000 }, (_, i): [number, string] => [i + 1, `the tape w${i} w${i % 97} ${'test '.repeat(i % 7)}`]);
    index(direct, rows.slice(0, 1000));
    index(adopted, rows.slice(0, 1000));
    index(direct, rows.slice(1000));
    index(worker, rows.slice(1000));
    // A root of height > 0 points at blocks by id: the case that must be renumbered.
    assert.ok(worker.exec("SELECT 1 FROM entries_fts_segdir WHERE substr(root, 1, 1) <> x'00'").length, 'the moved index has interior nodes');
    adoptIndex(adopted, worker.export());
    assert.deepStrictEqual(answers(adopted), answers(direct));
    // A merge reads every leaf from the segment's first to its last block by the ids in %_segdir.
    for (const db of [direct, adopted]) db.run("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')");
    assert.deepStrictEqual(answers(adopted), answers(direct));
    for (const db of [direct, adopted, worker]) db.close();
  });
});
