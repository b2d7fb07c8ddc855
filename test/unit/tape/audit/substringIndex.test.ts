import * as assert from 'assert';
import fc from 'fast-check';
import { SubstringIndex } from '../../../../src/tape/audit/substringIndex';
import { naiveOccursAsWord } from './naiveOccurrence';

// Few distinct units so that needles often occur: word characters (ASCII, accented, an astral
// letter's surrogates), separators and punctuation a path or a command holds.
const unit = fc.constantFrom('a', 'b', 'é', '1', '_', ' ', '/', '.', '-', '"', '\u{1d400}'[0], '\u{1d400}'[1], '\n');
const text = (maxLength: number) => fc.array(unit, { maxLength }).map((units) => units.join(''));

describe('SubstringIndex', () => {
  it('answers as a scan of the text does: includes, and occurs as a word', () => {
    fc.assert(
      fc.property(text(60), fc.array(text(8), { minLength: 1, maxLength: 20 }), (hay, needles) => {
        const index = new SubstringIndex(hay);
        // Substrings of the text too, so that most needles are present and the word rule decides.
        const all = [...needles, ...needles.map((n, i) => hay.slice(i % (hay.length + 1), (i % (hay.length + 1)) + n.length))];
        for (const needle of all) {
          assert.strictEqual(index.includes(needle), hay.includes(needle), `includes ${JSON.stringify(needle)} in ${JSON.stringify(hay)}`);
          assert.strictEqual(index.occursAsWord(needle), naiveOccursAsWord(hay, needle), `as a word ${JSON.stringify(needle)} in ${JSON.stringify(hay)}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('needs a word boundary on both sides of one same occurrence', () => {
    const index = new SubstringIndex('xsrc/a.ts and src/a.tsx, then (lib/b.md)');
    assert.strictEqual(index.includes('src/a.ts'), true);
    assert.strictEqual(index.occursAsWord('src/a.ts'), false, 'each occurrence touches a letter on one side');
    assert.strictEqual(index.occursAsWord('lib/b.md'), true);
    assert.strictEqual(index.occursAsWord('(lib'), true, 'a needle may start or end with a non-word character');
    assert.strictEqual(index.occursAsWord(''), false);
    assert.strictEqual(index.includes(''), true);
  });
});
