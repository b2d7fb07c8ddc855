import * as assert from 'assert';
import fc from 'fast-check';
import { RankedMatches } from '../../../../src/tape/search/rankedMatches';
import type { QueryWord } from '../../../../src/tape/search/searchQuery';
import { hasPhrase, hitRanges } from '../../../../src/tape/search/searchSnippet';
import { searchTokens } from '../../../../src/tape/search/searchTokens';

/** The parts of the one engine's ranking that have a fast path: each equals the plain rule it stands for. */
describe('search ranking parts', () => {
  it('RankedMatches hands out every match once, best first (equal scores the later row first), in any batch sizes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 0, max: 20 })), { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 10 }),
        (rows, batches) => {
          const unique = [...new Map(rows.map(([id, s]) => [id, s / 4])).entries()];
          const ranked = new RankedMatches();
          for (const [id, score] of unique) ranked.push(id, score);
          const expected = unique.map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || b.id - a.id);
          const got = [];
          for (let i = 0; !ranked.done; i++) got.push(...ranked.next(batches[i % batches.length]));
          assert.deepStrictEqual(got, expected);
          assert.strictEqual(ranked.length, unique.length);
        },
      ),
    );
  });

  it("hasPhrase on ASCII text (one expression) agrees with the tokens' rule it stands for", () => {
    const word = fc.constantFrom('a', 'ab', 'b', 'x1', 'conn', 'connection', 'refused', 'é', '数');
    // Words glued by '' or 'x' make a term sit inside a longer token, where it must not match.
    const sep = fc.constantFrom(' ', '-', '_', '.', '  ', '\n', '/', '', 'x');
    const query = fc.array(fc.array(word, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(
        // The text is drawn from the query's own terms half the time, so phrases occur, glued or not.
        query.chain((terms) => fc.tuple(fc.constant(terms), fc.array(fc.tuple(fc.oneof(word, fc.constantFrom(...terms.flat())), sep), { maxLength: 12 }))),
        fc.boolean(),
        fc.boolean(),
        ([terms, parts], prefix, upper) => {
          const raw = parts.map(([w, s]) => w + s).join('');
          const text = upper ? raw.toUpperCase() : raw;
          const words: QueryWord[] = terms.map((t, i) => ({ terms: t, prefix: prefix && i === terms.length - 1 }));
          const phrase: QueryWord = { terms: words.flatMap((w) => w.terms), prefix };
          const byTokens = words.length > 1 && hitRanges(searchTokens(text), [phrase]).length > 0;
          assert.strictEqual(hasPhrase(text, words), byTokens, JSON.stringify({ text, words }));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
