import * as assert from 'assert';
import fc from 'fast-check';
import { canonicalJson } from '../../../src/tape/canonicalJson';
import { jsonEqual } from '../../../src/tape/jsonEqual';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The value with every object's keys in another order: equal as JSON. */
function reordered(v: Json): Json {
  if (Array.isArray(v)) return v.map(reordered);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .reverse()
      .map((k) => [k, reordered(v[k])]),
  );
}

// JSON values small enough that two drawn at random are sometimes equal.
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<Json>(null, true, false, 0, -0, 1, 'a', ''),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('v'), { maxKeys: 3 }),
  ),
})).v;

describe('jsonEqual', () => {
  it('says what comparing canonical JSON texts says', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        assert.strictEqual(jsonEqual(a, b), canonicalJson(a) === canonicalJson(b));
        assert.strictEqual(jsonEqual(a, reordered(a)), true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('tells arrays from objects and a missing key from a present one', () => {
    assert.strictEqual(jsonEqual([], {}), false);
    assert.strictEqual(jsonEqual({ 0: 'x' }, ['x']), false);
    assert.strictEqual(jsonEqual({ a: 1 }, { b: 1 }), false);
    assert.strictEqual(jsonEqual({ a: null }, {}), false);
    assert.strictEqual(jsonEqual(0, -0), true);
    assert.strictEqual(jsonEqual('1', 1), false);
  });
});
