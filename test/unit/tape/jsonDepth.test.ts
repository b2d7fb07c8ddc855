import * as assert from 'assert';
import fc from 'fast-check';
import { canonicalJson, CanonicalJsonError } from '../../../src/tape/canonicalJson';
import { TapeValidationError, validateEntry, validateNewEntry } from '../../../src/tape/entry';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../../../src/tape/jsonDepth';

/** `[[[…]]]` nested `n` levels, as text and as a value built without recursion. */
const deepText = (n: number): string => '['.repeat(n) + ']'.repeat(n);
function deepValue(n: number): unknown[] {
  const root: unknown[] = [];
  let at = root;
  for (let i = 1; i < n; i++) {
    const next: unknown[] = [];
    at.push(next);
    at = next;
  }
  return root;
}

const event = (data: unknown) => ({ kind: 'event', name: 'x/deep', payload: { name: 'x/deep', data } });

describe('JSON nesting depth (jsonDepth.ts)', () => {
  it('a text within the limit passes; one level more is refused at the bracket that goes too deep', () => {
    assert.strictEqual(jsonTextTooDeep(deepText(MAX_JSON_DEPTH)), null);
    assert.strictEqual(
      jsonTextTooDeep(deepText(MAX_JSON_DEPTH + 1)),
      `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (at character ${MAX_JSON_DEPTH + 1})`,
    );
    assert.match(jsonTextTooDeep(`{"a":${'{"b":'.repeat(300)}1${'}'.repeat(300)}}`) ?? '', /more than 256 levels deep \(at character 1281\)/);
  });

  it('200,000 levels are refused at once, as text, as an entry value and by canonical JSON, without a stack overflow', () => {
    assert.match(jsonTextTooDeep(deepText(200_000)) ?? '', /more than 256 levels deep/);
    const deep = deepValue(200_000);
    for (const validate of [
      () => validateNewEntry(event(deep)),
      () => validateEntry({ ...event(deep), sessionId: 's', entryId: 2, provenanceKey: null, meta: {}, createdAt: 1 }),
    ]) {
      assert.throws(
        validate,
        (e: Error) => e instanceof TapeValidationError && /^entry: payload: nests arrays and objects more than 256 levels deep$/.test(e.message),
      );
    }
    assert.throws(
      () => validateNewEntry({ ...event(1), meta: { m: deep } }),
      (e: Error) => e instanceof TapeValidationError && /: meta: nests arrays and objects more than 256/.test(e.message),
    );
    assert.throws(
      () => canonicalJson({ input: deep }),
      (e: Error) => e instanceof CanonicalJsonError && e.message === '$.input: nests arrays and objects more than 256 levels deep',
    );
  });

  it('levels count from the entry: the deepest payload an append accepts is the deepest line an import accepts', () => {
    // The entry is level 1, payload 2, payload.data 3: data may nest MAX - 2 levels.
    const deepest = event(deepValue(MAX_JSON_DEPTH - 2));
    assert.doesNotThrow(() => validateNewEntry(deepest));
    assert.strictEqual(jsonTextTooDeep(JSON.stringify(deepest)), null);
    assert.doesNotThrow(() => canonicalJson(deepest));
    const tooDeep = event(deepValue(MAX_JSON_DEPTH - 1));
    assert.throws(() => validateNewEntry(tooDeep), TapeValidationError);
    assert.notStrictEqual(jsonTextTooDeep(JSON.stringify(tooDeep)), null);
    assert.throws(() => canonicalJson(tooDeep), CanonicalJsonError);
  });

  it('brackets inside strings, after escaped quotes and backslashes, do not count', () => {
    assert.strictEqual(jsonTextTooDeep(`["${'['.repeat(1000)}"]`), null);
    assert.strictEqual(jsonTextTooDeep(`["\\"${'['.repeat(1000)}"]`), null);
    // `\\` ends with a backslash that escapes nothing: the string closes, the brackets after it count.
    assert.notStrictEqual(jsonTextTooDeep(`["\\\\",${deepText(300)}]`), null);
    assert.strictEqual(jsonTextTooDeep('"unterminated [[['), null);
  });

  it('agrees with the depth of the value JSON.parse builds, for any JSON text', () => {
    const depthOf = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, limit) => {
        const text = JSON.stringify(value);
        assert.strictEqual(jsonTextTooDeep(text, limit) === null, depthOf(JSON.parse(text)) <= limit, text);
      }),
      { numRuns: 500 },
    );
  });
});
