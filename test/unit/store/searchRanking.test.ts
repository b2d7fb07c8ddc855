import * as assert from 'assert';
import fc from 'fast-check';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { parseQuery } from '../../../src/tape/search/searchQuery';
import { message } from './helpers';

/** Whether the query's words (not a quoted phrase, which is one word) occur consecutively in the text: the phrase bonus. */
function phraseIn(query: string, text: readonly string[]): boolean {
  const words = query.startsWith('"') ? [] : query.split(' ').filter((w) => !/^(OR|NEAR)$/.test(w));
  return words.length > 1 && text.some((_, i) => words.every((w, j) => text[i + j] === w));
}

/**
 * BM25 computed the plain way, row by row from matchinfo('pcnalx'): what the search's figures
 * (matchinfo 'pcx', corpus figures from the stat table, lengths from the docsize table) must equal;
 * times 1.5 with the phrase bonus; equal scores the later row first.
 */
function referenceRanking(db: Database, query: string, limit: number, texts: readonly string[][]): string[] {
  const u = (b: Uint8Array, i: number): number => new DataView(b.buffer, b.byteOffset).getUint32(i * 4, true);
  const r = db.exec("SELECT docid, matchinfo(entries_fts, 'pcnalx'), e.entry_id FROM entries_fts JOIN entries e ON e.id = docid WHERE entries_fts MATCH ?", [
    parseQuery(query, 'operators')?.match ?? '',
  ]);
  const scored = (r[0]?.values ?? []).map(([id, info, entryId]) => {
    const b = info as Uint8Array;
    const [phrases, rows, avgLen, len] = [u(b, 0), u(b, 2), u(b, 3) || 1, u(b, 4)];
    let score = 0;
    for (let i = 0; i < phrases; i++) {
      const tf = u(b, 5 + i * 3);
      const withHit = u(b, 5 + i * 3 + 2);
      if (tf) score += (Math.log((rows - withHit + 0.5) / (withHit + 0.5) + 1) * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * len) / avgLen));
    }
    // Entry 1 is the session's start.
    const bonus = phraseIn(query, texts[(entryId as number) - 2]) ? 1.5 : 1;
    return [id as number, Math.round(score * bonus * 1e4) / 1e4] as const;
  });
  scored.sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  return scored.slice(0, limit).map(([id, s]) => `${id}:${s}`);
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'error', 'file', 'test', 'run'];

describe('search ranking', () => {
  it('ranks rare and common words, phrases and OR queries exactly as BM25 over matchinfo does (with the phrase bonus)', async () => {
    const SQL = await loadSqlJs();
    const word = fc.constantFrom(...WORDS);
    // Some texts longer than 255 tokens, whose length takes two bytes in the docsize table (from 128 to 255 the first byte alone reads right).
    const text = fc.oneof(
      { arbitrary: fc.array(word, { minLength: 1, maxLength: 30 }), weight: 4 },
      { arbitrary: fc.array(word, { minLength: 250, maxLength: 600 }), weight: 1 },
    );
    const docs = fc.array(text, { minLength: 5, maxLength: 60 });
    const pair = fc.tuple(word, word);
    const query = fc.oneof(
      word,
      pair.map(([a, b]) => `${a} OR ${b}`),
      pair.map(([a, b]) => `"${a} ${b}"`),
      pair.map(([a, b]) => `${a} NEAR ${b}`),
      pair.map(([a, b]) => `${a} ${b}`),
    );
    await fc.assert(
      fc.asyncProperty(docs, query, fc.integer({ min: 1, max: 10 }), async (texts, q, limit) => {
        const store = await TapeStore.inMemory();
        try {
          for (const [i, words] of texts.entries()) await store.append('s', message(`m${i}`, words.join(' '), { orderSeq: i }));
          const db = new SQL.Database(store.snapshotBytes());
          try {
            const ids = new Map((db.exec('SELECT id, entry_id FROM entries')[0]?.values ?? []).map(([id, e]) => [e as number, id as number]));
            const expected = referenceRanking(db, q, limit, texts);
            // Unscoped, and scoped to the session (the query that joins entries as well).
            for (const opts of [{ limit }, { limit, sessionId: 's' }]) {
              const got = store.search(q, opts);
              assert.deepStrictEqual(
                got.map((h) => `${ids.get(h.entryId)}:${h.score}`),
                expected,
              );
            }
          } finally {
            db.close();
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
