import { VIEW_ASSEMBLED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { TapeStore } from '../../../src/store/tapeStore';
import { CanonicalJsonError, canonicalJson, sha256Hex } from '../../../src/tape/canonicalJson';
import type { ContextMessage, PromptMessage } from '../../../src/tape/context';
import { validateEntry, validateNewEntry } from '../../../src/tape/entry';
import {
  EXCLUSION_REASONS,
  MANIFEST_SCHEMA_VERSION,
  ManifestError,
  contentHashOf,
  diffManifests,
  hashManifest,
  hashPrompt,
  includedOf,
  keepsItsHash,
  manifestOfEntry,
  promptHashOf,
  sealManifest,
  toolsHashOf,
  verifyManifest,
  viewAssembledEntry,
  viewProvenanceKey,
  type ExcludedItem,
  type IncludedItem,
  type UnsealedManifest,
  type ViewManifest,
} from '../../../src/tape/manifest';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const refused = (value: unknown, pattern: RegExp) =>
  assert.throws(
    () => canonicalJson(value),
    (e: Error) => e instanceof CanonicalJsonError && pattern.test(e.message),
  );

describe('canonical JSON and SHA-256', () => {
  it('sorts keys at every depth, keeps array order and writes no whitespace', () => {
    const value = { b: { d: 1, c: [{ z: 1, a: 2 }, 3, 'x'] }, a: null, ab: [true, false], aa: {} };
    assert.strictEqual(canonicalJson(value), '{"a":null,"aa":{},"ab":[true,false],"b":{"c":[{"a":2,"z":1},3,"x"],"d":1}}');
    assert.strictEqual(canonicalJson([3, 1, 2]), '[3,1,2]');
    assert.strictEqual(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }));
    assert.strictEqual(canonicalJson(Object.assign(Object.create(null), { y: 1, x: 2 })), '{"x":2,"y":1}');
    // A value seen twice is not a cycle.
    const shared = { k: 1 };
    assert.strictEqual(canonicalJson({ p: shared, q: [shared] }), '{"p":{"k":1},"q":[{"k":1}]}');
  });

  it('writes unicode as itself, hashes its UTF-8 bytes and sorts keys by UTF-16 code units', () => {
    assert.strictEqual(canonicalJson({ é: 'ü', a: '😀 中文', '\n': '"\\' }), '{"\\n":"\\"\\\\","a":"😀 中文","é":"ü"}');
    assert.strictEqual(canonicalJson({ 'q"\\': 1, 'tab\t': 2 }), '{"q\\"\\\\":1,"tab\\t":2}');
    // Code-unit order puts U+1F600 (surrogate 0xD83D) before U+FFFF; code-point order would not.
    assert.strictEqual(canonicalJson({ '\uffff': 1, '😀': 2 }), '{"😀":2,"\uffff":1}');
    // A lone surrogate is escaped, so it never collides with the U+FFFD its UTF-8 encoding would give.
    assert.strictEqual(canonicalJson('\ud800'), '"\\ud800"');
    assert.notStrictEqual(sha256Hex(canonicalJson('\ud800')), sha256Hex(canonicalJson('\ufffd')));
    assert.strictEqual(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.strictEqual(sha256Hex('é😀'), createHash('sha256').update(Buffer.from('é😀', 'utf8')).digest('hex'));
  });

  it('sorts each object by its own keys, whatever shapes came before (key lists that would join alike)', () => {
    assert.strictEqual(canonicalJson({ 'a\u0000b': 1, c: 2 }), '{"a\\u0000b":1,"c":2}');
    assert.strictEqual(canonicalJson({ c: 2, a: 1, 'b\u0000c': 3 }), '{"a":1,"b\\u0000c":3,"c":2}');
    assert.strictEqual(canonicalJson({ '1:a': 1, b: 2 }), '{"1:a":1,"b":2}');
    assert.strictEqual(canonicalJson({ 1: 'x', a: 'y' }), '{"1":"x","a":"y"}');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer()), (o) => {
        const sorted = Object.keys(o).sort();
        assert.strictEqual(canonicalJson(o), `{${sorted.map((k) => `${JSON.stringify(k)}:${o[k]}`).join(',')}}`);
      }),
    );
  });

  it('sorts objects of many shapes side by side in one array, each by its own keys', () => {
    assert.strictEqual(
      canonicalJson([
        { b: 1, a: 2 },
        { a: 3, b: 4 },
        { b: 5, c: 6, a: 7 },
        { b: 8, a: 9 },
      ]),
      '[{"a":2,"b":1},{"a":3,"b":4},{"a":7,"b":5,"c":6},{"a":9,"b":8}]',
    );
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', '1'), fc.integer()), { maxLength: 8 }), (objects) => {
        const each = objects.map(
          (o) =>
            `{${Object.keys(o)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${o[k]}`)
              .join(',')}}`,
        );
        assert.strictEqual(canonicalJson([objects]), `[[${each.join(',')}]]`);
      }),
    );
  });

  it('writes numbers as JSON does, with -0 as 0', () => {
    assert.strictEqual(canonicalJson([0, -5, 0.1, 1.5e-7, 1e21, 123456789012, 2 ** 53]), '[0,-5,0.1,1.5e-7,1e+21,123456789012,9007199254740992]');
    assert.strictEqual(canonicalJson(-0), '0');
    assert.strictEqual(canonicalJson({ x: -0 }), canonicalJson({ x: 0 }));
  });

  it('refuses what JSON cannot hold, naming the path', () => {
    refused(NaN, /^\$: NaN is not a JSON number$/);
    refused({ a: [1, NaN] }, /^\$\.a\[1\]: NaN is not a JSON number$/);
    refused({ a: { b: Infinity } }, /\$\.a\.b: Infinity is not a JSON number/);
    refused({ a: -Infinity }, /\$\.a: -Infinity is not a JSON number/);
    refused(undefined, /^\$: undefined is not a JSON value$/);
    refused({ a: 1, b: undefined }, /\$\.b: undefined is not a JSON value/);
    refused([1, undefined], /\$\[1\]: undefined is not a JSON value/);
    // eslint-disable-next-line no-sparse-arrays -- a hole is what is refused
    refused([1, , 3], /\$\[1\]: undefined is not a JSON value/);
    refused({ n: 1n }, /\$\.n: bigint is not a JSON value/);
    refused({ f: () => 1 }, /\$\.f: function is not a JSON value/);
    refused({ s: Symbol('x') }, /\$\.s: symbol is not a JSON value/);
    refused({ d: new Date(0) }, /\$\.d: a Date is not a JSON value/);
    refused({ m: new Map() }, /\$\.m: a Map is not a JSON value/);
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { back: loop };
    refused(loop, /\$\.self\.back: a cycle is not a JSON value/);
    const ring: unknown[] = [1];
    ring.push([ring]);
    refused(ring, /^\$\[1\]\[0\]: a cycle is not a JSON value$/);
  });
});

// ---- manifests ----

const HEX = '0123456789abcdef';
const hex64 = fc.string({ unit: fc.constantFrom(...HEX), minLength: 64, maxLength: 64 });
const word = fc.string({ unit: fc.constantFrom(...'abcxyz/-_é中😀'), minLength: 1, maxLength: 8 });
const id = fc.integer({ min: 1, max: 1_000_000 });
const n = fc.nat({ max: 200_000 });

const includedArb: fc.Arbitrary<IncludedItem> = fc
  .record({
    tape: fc.boolean(),
    entryId: id,
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    reason: word,
    contentHash: hex64,
    tokens: n,
  })
  .map(({ tape, entryId, ...rest }) => ({ ...rest, entryId: tape ? entryId : null, source: tape ? 'tape' : 'synthetic' }));

const paramsArb = fc.record(
  {
    maxOutput: n,
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    toolChoice: fc.oneof(fc.constantFrom('auto' as const, 'none' as const, 'required' as const), fc.record({ name: word })),
    reasoningEffort: fc.constantFrom('minimal' as const, 'low' as const, 'medium' as const, 'high' as const),
    seed: fc.integer(),
  },
  { requiredKeys: ['maxOutput'] },
);

// Version 1 (no params) and the current version (with them): both are manifests.
const unsealedArb: fc.Arbitrary<UnsealedManifest> = fc
  .tuple(unsealedFieldsArb(), fc.option(paramsArb, { nil: undefined }))
  .map(([m, params]) => (params === undefined ? m : { ...m, schemaVersion: MANIFEST_SCHEMA_VERSION, params }));

function unsealedFieldsArb(): fc.Arbitrary<UnsealedManifest> {
  return fc.record({
    schemaVersion: fc.constant(1 as const),
    viewId: word,
    sessionId: word,
    turnId: word,
    requestSeq: n,
    policy: fc.record({ name: word, version: fc.integer({ min: 1, max: 9 }) }),
    builderVersion: word,
    latestEntryId: id,
    anchorEntryId: fc.option(id, { nil: null }),
    included: fc.array(includedArb, { maxLength: 6 }),
    excluded: fc.array(fc.record({ entryId: id, reason: fc.oneof(fc.constantFrom(...EXCLUSION_REASONS), word) }), { maxLength: 4 }),
    tokenBudget: fc.record({ contextWindow: fc.integer({ min: 1, max: 1_000_000 }), maxOutput: n, reserve: n, estimatedPrompt: n }),
    model: fc.record({ vendor: word, id: word }),
    hashes: fc.record({ promptHash: hex64, toolsHash: hex64 }),
    assembledAt: fc.nat(),
  });
}

/** A deep copy whose object keys come in a shuffled order (a seeded PRNG, so a failure replays). */
function reorder(value: Json, seed: number): Json {
  let s = seed >>> 0 || 1;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0), s / 2 ** 32);
  const walk = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [keys[i], keys[j]] = [keys[j], keys[i]];
    }
    const out: { [k: string]: Json } = {};
    for (const k of keys) out[k] = walk(v[k]);
    return out;
  };
  return walk(value);
}

type Path = (string | number)[];

function leafPaths(v: unknown, path: Path = []): Path[] {
  if (v === null || typeof v !== 'object') return [path];
  if (Array.isArray(v)) return v.flatMap((x, i) => leafPaths(x, [...path, i]));
  return Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...path, k]));
}

const ROLES = ['system', 'user', 'assistant', 'tool'];

/** A copy with the leaf at `path` changed to another value the schema accepts (except schemaVersion, which has one). */
function mutated(m: ViewManifest, path: Path): ViewManifest {
  const copy = structuredClone(m) as unknown as Record<string | number, unknown>;
  const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, copy);
  const key = path[path.length - 1];
  const old = parent[key];
  if (key === 'source' || (key === 'entryId' && path[0] === 'included')) {
    // Source and entry id go together: flipping one flips the other.
    const tape = parent.source === 'tape';
    parent.source = tape ? 'synthetic' : 'tape';
    parent.entryId = tape ? null : 1;
  } else if (key === 'role') parent[key] = ROLES[(ROLES.indexOf(old as string) + 1) % ROLES.length];
  else if (key === 'toolChoice') parent[key] = old === 'auto' ? 'none' : 'auto';
  else if (key === 'reasoningEffort') parent[key] = old === 'low' ? 'high' : 'low';
  else if (old === null) parent[key] = 1;
  else if (typeof old === 'number') parent[key] = old + 1;
  else if (typeof old === 'string' && /^[0-9a-f]{64}$/.test(old)) parent[key] = (old[0] === '0' ? '1' : '0') + old.slice(1);
  else parent[key] = `${String(old)}x`;
  return copy as unknown as ViewManifest;
}

describe('ViewManifest hashing (SPEC 2.6)', () => {
  it('SPEC 3.12: manifests hash stably (key order, assembledAt excluded) and a tampered manifest is flagged', function () {
    // 150 manifests, each checked again with every leaf changed: about 2 s alone, more on a loaded machine.
    this.timeout(20_000);
    fc.assert(
      fc.property(unsealedArb, fc.integer(), fc.nat(), (unsealed, seed, laterAt) => {
        const m = sealManifest(unsealed);
        const h = m.hashes.manifestHash;
        assert.deepStrictEqual(verifyManifest(m), { ok: true });
        assert.strictEqual(hashManifest(unsealed), h, 'sealing does not change what is hashed');

        const shuffled = reorder(m as unknown as Json, seed) as unknown as ViewManifest;
        assert.strictEqual(hashManifest(shuffled), h);
        assert.strictEqual(canonicalJson(shuffled), canonicalJson(m));
        assert.deepStrictEqual(verifyManifest(shuffled), { ok: true });

        const later = { ...m, assembledAt: laterAt };
        assert.strictEqual(hashManifest(later), h);
        assert.deepStrictEqual(verifyManifest(later), { ok: true });
        // A sealed manifest equal in content vouches for a recorded one; a copy that is not sealed here does not.
        assert.strictEqual(keepsItsHash(shuffled, m), true);
        assert.strictEqual(keepsItsHash(later, m), true);
        assert.strictEqual(keepsItsHash(shuffled), true);

        for (const path of leafPaths(m)) {
          const where = path.join('.');
          if (where === 'assembledAt' || where === 'hashes.manifestHash') continue;
          const bad = mutated(m, path);
          assert.notStrictEqual(hashManifest(bad), h, `changing ${where} changes the hash`);
          assert.strictEqual(keepsItsHash(bad, m), false, `changing ${where} is found beside the sealed original`);
          assert.strictEqual(keepsItsHash(bad, structuredClone(bad)), false, `an unsealed copy does not vouch for ${where}: the recorded manifest is hashed`);
          const check = verifyManifest(bad);
          assert.strictEqual(check.ok, false, `changing ${where} is flagged`);
          if (where !== 'schemaVersion')
            assert.match((check as { reason: string }).reason, /^manifestHash mismatch: recorded [0-9a-f]{64}, computed [0-9a-f]{64}$/, where);
        }

        // Structural edits: order matters, and so does every item.
        if (m.included.length >= 2 && canonicalJson(m.included[0]) !== canonicalJson(m.included[1])) {
          const swapped = { ...m, included: [m.included[1], m.included[0], ...m.included.slice(2)] };
          assert.strictEqual(verifyManifest(swapped).ok, false, 'reordered items are flagged');
        }
        if (m.included.length > 0) assert.strictEqual(verifyManifest({ ...m, included: m.included.slice(1) }).ok, false, 'a dropped item is flagged');
        assert.strictEqual(verifyManifest({ ...m, excluded: [...m.excluded, { entryId: 1, reason: 'empty' }] }).ok, false, 'an added exclusion is flagged');
      }),
      { numRuns: 150 },
    );
  });

  it('flags a manifest that is not one, and refuses to seal or carry fields outside the schema', () => {
    const m = sealManifest(baseUnsealed([]));
    assert.match((verifyManifest({ ...m, prompt: 'secret text' }) as { reason: string }).reason, /^not a valid manifest: ✖ Unrecognized key: "prompt"$/);
    assert.match((verifyManifest(null) as { reason: string }).reason, /^not a valid manifest/);
    assert.throws(
      () =>
        sealManifest({
          ...baseUnsealed([]),
          included: [{ entryId: null, role: 'user', source: 'tape', reason: 'history', contentHash: 'a'.repeat(64), tokens: 1 }],
        }),
      (e: Error) =>
        e instanceof ManifestError && /✖ a tape item has an entryId and a synthetic item has none.*\n {2}→ at included\[0\]\.entryId/.test(e.message),
    );
    assert.throws(
      () => sealManifest({ ...baseUnsealed([]), tokenBudget: { contextWindow: 8000, maxOutput: 1000, reserve: 0, estimatedPrompt: NaN } }),
      (e: Error) => e instanceof ManifestError && /tokenBudget\.estimatedPrompt/.test(e.message),
    );
    assert.throws(
      () => sealManifest({ ...baseUnsealed([]), hashes: { promptHash: 'ABC', toolsHash: 'a'.repeat(64) } }),
      /✖ expected a SHA-256 as 64 lowercase hex digits\n {2}→ at hashes\.promptHash/,
    );
  });

  it('schema version 2 records the request parameters; version 1 manifests (without them) stay valid', () => {
    assert.strictEqual(MANIFEST_SCHEMA_VERSION, 2);
    const v1 = sealManifest(baseUnsealed([]));
    assert.deepStrictEqual(verifyManifest(v1), { ok: true });
    assert.strictEqual('params' in v1, false);
    const params = { maxOutput: 1000, temperature: 0.2, toolChoice: { name: 'read_file' }, reasoningEffort: 'low' as const, seed: 42 };
    const v2 = sealManifest(baseUnsealed([], { schemaVersion: 2, params }));
    assert.deepStrictEqual(verifyManifest(v2), { ok: true });
    assert.deepStrictEqual(v2.params, params);
    assert.notStrictEqual(hashManifest(v2), hashManifest({ ...v2, params: { ...params, seed: 43 } }), 'the params are hashed');
    // Each version has exactly its own fields.
    assert.throws(() => sealManifest(baseUnsealed([], { schemaVersion: 2 })), /version 1 manifest has none\n {2}→ at params/);
    assert.throws(() => sealManifest(baseUnsealed([], { params })), /version 1 manifest has none\n {2}→ at params/);
    assert.throws(() => sealManifest(baseUnsealed([], { schemaVersion: 2, params: { ...params, topK: 3 } as typeof params })), /Unrecognized key: "topK"/);
    assert.throws(() => sealManifest(baseUnsealed([], { schemaVersion: 3 as 2, params })), /schemaVersion/);
  });

  it('hashes each message of a prompt as contentHashOf does, however often its content recurs under other roles and call ids', () => {
    // The same short content under many call ids, roles and tool names: the kept hashes must tell them apart.
    const messages: PromptMessage[] = [
      ...Array.from({ length: 40 }, (_, i): PromptMessage => ({
        role: 'tool',
        content: 'ok',
        toolCallId: `c${i % 25}`,
        toolName: i % 2 ? 'read_file' : 'list_dir',
      })),
      { role: 'user', content: 'ok' },
      { role: 'assistant', content: 'ok' },
      { role: 'tool', content: 'ok', toolCallId: 'c1' },
    ];
    for (let round = 0; round < 3; round++) {
      const { contentHashes, promptHash } = hashPrompt(messages);
      assert.deepStrictEqual(contentHashes, messages.map(contentHashOf), `round ${round}`);
      assert.strictEqual(promptHash, sha256Hex(canonicalJson(messages.map(contentHashOf))));
    }
  });

  it('hashes a context item and a prompt from what the provider receives, not from entry ids', () => {
    const call: ContextMessage = { role: 'assistant', source: 'tape', entryId: 4, content: '{"path":"a"}', toolCallId: 't1', toolName: 'read_file' };
    assert.strictEqual(contentHashOf(call), sha256Hex('{"content":"{\\"path\\":\\"a\\"}","role":"assistant","toolCallId":"t1","toolName":"read_file"}'));
    assert.strictEqual(contentHashOf({ role: 'user', content: 'hi' }), sha256Hex('{"content":"hi","role":"user"}'));
    assert.strictEqual(contentHashOf({ ...call, entryId: 99, source: 'synthetic' } as ContextMessage), contentHashOf(call));
    assert.notStrictEqual(contentHashOf({ ...call, toolName: 'list_dir' }), contentHashOf(call));

    const user: ContextMessage = { role: 'user', source: 'tape', entryId: 2, content: 'hi' };
    const itemHashes = [
      canonicalJson({ role: 'user', content: 'hi' }),
      canonicalJson({ role: 'assistant', content: '{"path":"a"}', toolCallId: 't1', toolName: 'read_file' }),
    ].map(sha256Hex);
    assert.strictEqual(promptHashOf([user, call]), sha256Hex(`["${itemHashes[0]}","${itemHashes[1]}"]`));
    assert.notStrictEqual(promptHashOf([call, user]), promptHashOf([user, call]), 'order is part of the prompt');
    assert.strictEqual(promptHashOf([{ ...user, entryId: 7 }, call]), promptHashOf([user, call]));

    const tools = [{ name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
    assert.strictEqual(toolsHashOf(tools), sha256Hex('[{"name":"read_file","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}}]'));
    assert.strictEqual(toolsHashOf([]), sha256Hex('[]'));

    assert.deepStrictEqual(includedOf(call, 'history', 12), {
      entryId: 4,
      role: 'assistant',
      source: 'tape',
      reason: 'history',
      contentHash: contentHashOf(call),
      tokens: 12,
    });
  });
});

// ---- diffs ----

const msg = (entryId: number | null, role: ContextMessage['role'], content: string): ContextMessage => ({
  role,
  source: entryId === null ? 'synthetic' : 'tape',
  entryId,
  content,
});

function baseUnsealed(included: IncludedItem[], over: Partial<UnsealedManifest> = {}): UnsealedManifest {
  return {
    schemaVersion: 1,
    viewId: 'v1',
    sessionId: 's1',
    turnId: 't1',
    requestSeq: 1,
    policy: { name: 'tape-context', version: 1 },
    builderVersion: '0.1.0',
    latestEntryId: 20,
    anchorEntryId: null,
    included,
    excluded: [],
    tokenBudget: { contextWindow: 8000, maxOutput: 1000, reserve: 500, estimatedPrompt: included.reduce((s, i) => s + i.tokens, 0) },
    model: { vendor: 'ollama', id: 'qwen3:8b' },
    hashes: { promptHash: 'a'.repeat(64), toolsHash: 'b'.repeat(64) },
    assembledAt: 1_700_000_000_000,
    ...over,
  };
}
const manifest = (included: IncludedItem[], over: Partial<UnsealedManifest> = {}): ViewManifest => sealManifest(baseUnsealed(included, over));

describe('manifest diff (SPEC 2.6)', () => {
  const sys = includedOf(msg(1, 'system', 'be brief'), 'system_prompt', 10);
  const u1 = includedOf(msg(2, 'user', 'read a.ts'), 'history', 5);
  const a1 = includedOf(msg(3, 'assistant', 'ok'), 'history', 2);
  const c1 = includedOf({ ...msg(4, 'assistant', '{"path":"a.ts"}'), toolCallId: 'c1', toolName: 'read_file' }, 'history', 7);
  const r1 = includedOf({ ...msg(5, 'tool', 'export {}'), toolCallId: 'c1', toolName: 'read_file' }, 'history', 30);
  const u2 = includedOf(msg(6, 'user', 'now b.ts'), 'input', 4);

  it('is empty between identical manifests, whose whole prompt is a reusable prefix', () => {
    const a = manifest([sys, u1, a1]);
    const d = diffManifests(a, { ...a, assembledAt: a.assembledAt + 5 });
    assert.deepStrictEqual(d, {
      added: [],
      removed: [],
      reasonChanges: [],
      contentChanges: [],
      anchor: null,
      policy: null,
      model: null,
      builderVersion: null,
      promptChanged: false,
      toolsChanged: false,
      tokens: { estimatedPrompt: { from: 17, to: 17, delta: 0 }, included: { from: 17, to: 17, delta: 0 } },
      unchangedPrefix: { items: 3, tokens: 17 },
    });
  });

  it('lists added and removed entries, with the reason the newer request excluded them, and reason changes', () => {
    const a = manifest([sys, u1, a1, c1, r1], {
      excluded: [
        { entryId: 7, reason: 'empty' },
        { entryId: 8, reason: 'retracted' },
      ],
    });
    const excluded: ExcludedItem[] = [
      { entryId: 2, reason: 'out_of_budget' },
      { entryId: 7, reason: 'superseded' },
      { entryId: 8, reason: 'retracted' },
    ];
    const b = manifest([{ ...sys, reason: 'system_prompt_v2' }, c1, r1, { ...u2, reason: 'history' }, includedOf(msg(9, 'assistant', 'done'), 'input', 3)], {
      excluded,
      hashes: { promptHash: 'c'.repeat(64), toolsHash: 'b'.repeat(64) },
    });
    const d = diffManifests(a, b);
    assert.deepStrictEqual(
      d.added.map((i) => i.entryId),
      [6, 9],
    );
    assert.deepStrictEqual(d.removed, [
      { ...u1, excludedAs: 'out_of_budget' },
      { ...a1, excludedAs: null },
    ]);
    assert.deepStrictEqual(d.reasonChanges, [
      { list: 'included', entryId: 1, contentHash: sys.contentHash, from: 'system_prompt', to: 'system_prompt_v2' },
      { list: 'excluded', entryId: 7, contentHash: null, from: 'empty', to: 'superseded' },
    ]);
    assert.deepStrictEqual(d.contentChanges, []);
    assert.strictEqual(d.promptChanged, true);
    assert.strictEqual(d.toolsChanged, false);
    assert.deepStrictEqual(d.tokens.included, { from: 54, to: 54, delta: 0 });
    assert.deepStrictEqual(d.unchangedPrefix, { items: 1, tokens: 10 }, 'a reason change alone keeps the prefix');
  });

  it('shows an anchor change: the history before it leaves, the checkpoint comes in', () => {
    const checkpoint = includedOf(msg(null, 'user', '[Checkpoint compaction/auto at entry 10: …]\n\nsummary'), 'checkpoint', 40);
    const a = manifest([sys, u1, a1, c1, r1, u2]);
    const b = manifest([sys, checkpoint, u2], {
      anchorEntryId: 10,
      excluded: [2, 3, 4, 5].map((entryId) => ({ entryId, reason: 'before_anchor' })),
    });
    const d = diffManifests(a, b);
    assert.deepStrictEqual(d.anchor, { from: null, to: 10 });
    assert.deepStrictEqual(d.added, [checkpoint]);
    assert.deepStrictEqual(
      d.removed.map((i) => [i.entryId, i.excludedAs]),
      [
        [2, 'before_anchor'],
        [3, 'before_anchor'],
        [4, 'before_anchor'],
        [5, 'before_anchor'],
      ],
    );
    assert.deepStrictEqual(d.tokens.included, { from: 58, to: 54, delta: -4 });
    assert.deepStrictEqual(d.unchangedPrefix, { items: 1, tokens: 10 });
  });

  it('measures the unchanged prefix: it ends at the first item whose content or role differs', () => {
    const a = manifest([sys, u1, a1, c1, r1]);
    const grown = manifest([sys, u1, a1, c1, r1, u2], { requestSeq: 2 });
    assert.deepStrictEqual(diffManifests(a, grown).unchangedPrefix, { items: 5, tokens: 54 });
    assert.deepStrictEqual(diffManifests(a, grown).tokens.estimatedPrompt, { from: 54, to: 58, delta: 4 });

    // The same tool result, cut shorter by the policy: same entry, new content, cache broken from there.
    const cut = includedOf({ ...msg(5, 'tool', 'export {} …(cut)'), toolCallId: 'c1', toolName: 'read_file' }, 'history', 9);
    const d = diffManifests(a, manifest([sys, u1, a1, c1, cut, u2]));
    assert.deepStrictEqual(d.unchangedPrefix, { items: 4, tokens: 24 });
    assert.deepStrictEqual(d.contentChanges, [{ entryId: 5, from: r1.contentHash, to: cut.contentHash }]);
    assert.deepStrictEqual(
      d.added.map((i) => i.entryId),
      [6],
    );
    assert.deepStrictEqual(d.removed, []);

    // Equal hashes under different roles are not the same message.
    const relabelled = manifest([sys, { ...u1, role: 'assistant' }, a1]);
    assert.strictEqual(diffManifests(a, relabelled).unchangedPrefix.items, 1);
    // Something new at the front moves everything: nothing can be reused.
    assert.deepStrictEqual(diffManifests(a, manifest([u2, sys, u1, a1, c1, r1])).unchangedPrefix, { items: 0, tokens: 0 });
  });

  it('reports model, policy, builder and tool changes', () => {
    const a = manifest([sys, u1]);
    const b = manifest([sys, u1], {
      model: { vendor: 'openai', id: 'gpt-5' },
      policy: { name: 'tape-context', version: 2 },
      builderVersion: '0.2.0',
      hashes: { promptHash: 'a'.repeat(64), toolsHash: 'd'.repeat(64) },
      tokenBudget: { contextWindow: 400000, maxOutput: 1000, reserve: 500, estimatedPrompt: 16 },
    });
    const d = diffManifests(a, b);
    assert.deepStrictEqual(d.model, { from: { vendor: 'ollama', id: 'qwen3:8b' }, to: { vendor: 'openai', id: 'gpt-5' } });
    assert.deepStrictEqual(d.policy, { from: { name: 'tape-context', version: 1 }, to: { name: 'tape-context', version: 2 } });
    assert.deepStrictEqual(d.builderVersion, { from: '0.1.0', to: '0.2.0' });
    assert.strictEqual(d.toolsChanged, true);
    assert.strictEqual(d.promptChanged, false);
    assert.deepStrictEqual(d.tokens.estimatedPrompt, { from: 15, to: 16, delta: 1 });
    assert.deepStrictEqual(diffManifests(a, manifest([sys, u1], { model: { vendor: 'ollama', id: 'llama3' } })).model, {
      from: { vendor: 'ollama', id: 'qwen3:8b' },
      to: { vendor: 'ollama', id: 'llama3' },
    });
  });

  it('matches synthetic items by content, one for one', () => {
    const interrupted = includedOf(
      { ...msg(null, 'tool', 'interrupted: no result was recorded'), toolCallId: 'c9', toolName: 'run_command' },
      'interrupted',
      8,
    );
    const a = manifest([sys, interrupted, interrupted]);
    const b = manifest([sys, interrupted]);
    const d = diffManifests(a, b);
    assert.deepStrictEqual(d.removed, [{ ...interrupted, excludedAs: null }]);
    assert.deepStrictEqual(d.added, []);
    assert.deepStrictEqual(diffManifests(b, a).added, [interrupted]);
  });
});

// ---- the view/assembled entry ----

describe('the view/assembled event', () => {
  const context: ContextMessage[] = [msg(1, 'system', 'system prompt text'), msg(2, 'user', 'a secret-looking prompt: sk-123')];
  const request = (over: Partial<UnsealedManifest> = {}) =>
    manifest(
      context.map((m) => includedOf(m, 'history', 5)),
      { sessionId: 'parent::fork::f/1', turnId: 'turn 7', requestSeq: 3, hashes: { promptHash: promptHashOf(context), toolsHash: toolsHashOf([]) }, ...over },
    );

  it('round-trips a manifest through an entry, validated as the store validates it, without prompt text', () => {
    const m = request();
    const entry = viewAssembledEntry(m);
    assert.deepStrictEqual(validateNewEntry(entry), { ...entry, meta: {} });
    assert.strictEqual(entry.kind, 'event');
    assert.strictEqual(entry.name, VIEW_ASSEMBLED);
    assert.deepStrictEqual(entry.payload, { name: VIEW_ASSEMBLED, data: m });
    assert.deepStrictEqual(manifestOfEntry(entry), m);

    const stored = validateEntry(JSON.parse(JSON.stringify({ ...entry, sessionId: m.sessionId, entryId: 21, meta: {}, createdAt: 1 })));
    const back = manifestOfEntry(stored);
    assert.deepStrictEqual(back, m);
    assert.deepStrictEqual(verifyManifest(back), { ok: true });
    assert.ok(!JSON.stringify(entry).includes('sk-123') && !JSON.stringify(entry).includes('system prompt text'));
  });

  it('keys a request by session, turn and requestSeq, so a retry reuses its manifest', async () => {
    const first = request();
    const retry = request({ assembledAt: first.assembledAt + 30_000 });
    assert.strictEqual(viewAssembledEntry(first).provenanceKey, 'view/parent%3A%3Afork%3A%3Af%2F1/turn%207/3');
    assert.strictEqual(viewAssembledEntry(retry).provenanceKey, viewAssembledEntry(first).provenanceKey);
    assert.notStrictEqual(viewProvenanceKey('a/b', 'c', 1), viewProvenanceKey('a', 'b/c', 1), 'parts cannot run into each other');
    assert.notStrictEqual(viewAssembledEntry(request({ requestSeq: 4 })).provenanceKey, viewAssembledEntry(first).provenanceKey);
    assert.notStrictEqual(viewAssembledEntry(request({ turnId: 'turn 8' })).provenanceKey, viewAssembledEntry(first).provenanceKey);

    const store = await TapeStore.inMemory();
    try {
      const written = await store.append(first.sessionId, viewAssembledEntry(first));
      const again = await store.append(first.sessionId, viewAssembledEntry(retry));
      assert.strictEqual(written.deduplicated, false);
      assert.strictEqual(again.deduplicated, true);
      assert.strictEqual(again.entry.entryId, written.entry.entryId);
      assert.strictEqual(manifestOfEntry(again.entry).assembledAt, first.assembledAt);
    } finally {
      await store.close();
    }
  });

  it('refuses to record a tampered manifest and reads back bad entries with a clear error', () => {
    const m = request();
    assert.throws(
      () => viewAssembledEntry({ ...m, latestEntryId: m.latestEntryId + 1 }),
      (e: Error) => e instanceof ManifestError && /^refusing to record manifest v1: manifestHash mismatch/.test(e.message),
    );
    const entry = viewAssembledEntry(m);
    assert.throws(
      () => manifestOfEntry({ ...entry, name: 'view/other', payload: { name: 'view/other', data: m } }),
      /^ManifestError: entry \(event view\/other\) is not a view\/assembled event$/,
    );
    assert.throws(
      () =>
        manifestOfEntry({
          sessionId: 's',
          entryId: 9,
          kind: 'event',
          name: VIEW_ASSEMBLED,
          provenanceKey: null,
          meta: {},
          createdAt: 0,
          payload: { name: VIEW_ASSEMBLED, data: { ...m, hashes: { promptHash: m.hashes.promptHash } } },
        }),
      (e: Error) =>
        e instanceof ManifestError &&
        /^entry 9 \(event view\/assembled\) holds no valid manifest in payload\.data: ✖ .*\n {2}→ at hashes\.toolsHash\n✖ .*\n {2}→ at hashes\.manifestHash$/.test(
          e.message,
        ),
    );
    assert.throws(() => manifestOfEntry({ ...entry, payload: { name: VIEW_ASSEMBLED, data: 'nope' } }), /holds no valid manifest in payload\.data: ✖ [^\n]*$/);
    // A manifest edited on the tape is still read, so it can be shown, and then flagged.
    const edited = { ...entry, payload: { name: VIEW_ASSEMBLED, data: { ...m, anchorEntryId: 3 } } };
    assert.strictEqual(manifestOfEntry(edited).anchorEntryId, 3);
    assert.strictEqual(verifyManifest(manifestOfEntry(edited)).ok, false);
  });
});
