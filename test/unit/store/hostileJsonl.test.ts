import * as assert from 'assert';
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { exportJsonl, importJsonl, openTapeFile } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { TapeValidationError, type Entry, type NewEntry } from '../../../src/tape/entry';
import { fingerprint, tempDir } from './helpers';

/** Raw C0 but the line feed between lines, DEL, C1, U+2028/U+2029. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

/** Characters a hostile or careless tape holds: every control, ESC sequences, separators, surrogates alone and in pairs. */
const nasty = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u2028', '\u2029', '\u001b[31m', '\u009b2J', '\u001b]0;title\u0007', '\ud800', '\udfff', '😀', '"', '\\', 'é', ' '),
  fc.string({ maxLength: 3 }),
);
const text = fc.array(nasty, { maxLength: 8 }).map((parts) => parts.join(''));
/** Names, keys and session ids are SQLite columns (UTF-8): one with a lone surrogate is refused, tested below. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const nonEmpty = text.map((t) => `s${t}`).filter((t) => !LONE_SURROGATE.test(t));

/** A few entries whose every free text (session id, name, provenance key, payload and meta keys and values) is nasty. */
const session = fc.record({
  sessionId: nonEmpty,
  entries: fc.array(
    fc.record({
      name: nonEmpty,
      key: fc.option(nonEmpty, { nil: null }),
      content: text,
      field: text,
      value: fc.jsonValue({ maxDepth: 2 }),
      metaKey: text,
      at: fc.nat({ max: 2 ** 40 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

const entryOf = (
  e: { name: string; key: string | null; content: string; field: string; value: unknown; metaKey: string; at: number },
  i: number,
): NewEntry => ({
  kind: 'event',
  name: `x/${e.name}`,
  provenanceKey: e.key === null ? null : `${i}${e.key}`,
  payload: { name: `x/${e.name}`, data: { content: e.content, [e.field]: e.value, list: [e.content, { [e.content]: e.field }] } },
  meta: { [e.metaKey]: e.content },
  createdAt: e.at,
});

/** Every entry as the values a reader gets back: kind, name, key, payload, meta, time and ids. */
async function entriesOf(file: string): Promise<Entry[]> {
  const store = await openTapeFile(file, { readOnly: true });
  try {
    return store.sessions().flatMap((s) => store.entries(s.sessionId));
  } finally {
    await store.close();
  }
}

describe('JSONL export of hostile text', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes no raw control character, and export -> import -> export gives every entry back and the same bytes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(session, async ({ sessionId, entries }) => {
        const at = path.join(dir, String(run++));
        fs.mkdirSync(at);
        const tape = path.join(at, 'src.tape.sqlite');
        const store = await TapeStore.open(tape);
        await store.appendMany(sessionId, entries.map(entryOf));
        await store.close();

        const exported = path.join(at, 'one.tape.jsonl');
        await exportJsonl(tape, exported);
        const bytes = fs.readFileSync(exported);
        const lines = bytes.toString('utf8').split('\n');
        assert.strictEqual(lines.pop(), '', 'the file ends with a line break');
        for (const l of lines) assert.doesNotMatch(l, RAW_CONTROL, l);

        const imported = path.join(at, 'back.tape.sqlite');
        await importJsonl(exported, imported);
        assert.deepStrictEqual(await entriesOf(imported), await entriesOf(tape));
        const again = path.join(at, 'two.tape.jsonl');
        await exportJsonl(imported, again);
        assert.ok(fs.readFileSync(again).equals(bytes), 'the second export is byte for byte the first');
      }),
      { numRuns: 40 },
    );
  });

  it('a hand-written JSONL with raw DEL, C1, separators in strings and tabs between tokens exports escaped, with the same values', async () => {
    const src = path.join(dir, 'hand.tape.jsonl');
    const raw = '\u007f \u0085 \u009b31m \u2028 \u2029';
    fs.writeFileSync(
      src,
      `{"sessionId":"s","entryId":1,"kind":"anchor","name":"session/start","provenanceKey":null,"payload":{\t"name":"session/start",\r"state":"${raw}"},"meta":{"k\u0090":"${raw}"},"createdAt":1}\n`,
    );
    const out = path.join(dir, 'out.tape.jsonl');
    await exportJsonl(src, out);
    const line = fs.readFileSync(out, 'utf8');
    assert.strictEqual(
      line,
      '{"sessionId":"s","entryId":1,"kind":"anchor","name":"session/start","provenanceKey":null,"payload":{"name":"session/start","state":"\\u007f \\u0085 \\u009b31m \\u2028 \\u2029"},"meta":{"k\\u0090":"\\u007f \\u0085 \\u009b31m \\u2028 \\u2029"},"createdAt":1}\n',
    );
    assert.deepStrictEqual(await entriesOf(out), await entriesOf(src));
  });

  it('a line nested 200,000 deep, in an array or an object, is refused naming the file and line, without a stack overflow', async () => {
    const first =
      '{"sessionId":"s","entryId":1,"kind":"anchor","name":"session/start","provenanceKey":null,"payload":{"name":"session/start","state":null},"meta":{},"createdAt":1}\n';
    const deep = (open: string, close: string) =>
      `{"sessionId":"s","entryId":2,"kind":"event","name":"x/y","provenanceKey":null,"payload":{"name":"x/y","data":${open.repeat(200_000)}1${close.repeat(200_000)}},"meta":{},"createdAt":1}\n`;
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const src = path.join(dir, 'deep.tape.jsonl');
      fs.writeFileSync(src, first + deep(open, close));
      const before = fingerprint(src);
      const dst = path.join(dir, 'deep.tape.sqlite');
      const refusal = (e: Error) => e instanceof TapeFileError && e.message.startsWith(`${src}:2: nests arrays and objects more than 256 levels deep`);
      await assert.rejects(importJsonl(src, dst), refusal);
      await assert.rejects(openTapeFile(src, { readOnly: true }), refusal);
      assert.ok(!fs.existsSync(dst));
      assert.deepStrictEqual(fingerprint(src), before);
    }
  });

  it('a `__proto__` key is an ordinary key: appended, exported and imported like any other', async () => {
    const tape = path.join(dir, 'proto.tape.sqlite');
    const store = await TapeStore.open(tape);
    const entry = JSON.parse(
      '{"kind":"event","name":"x/y","payload":{"name":"x/y","data":1,"__proto__":{"polluted":true}},"meta":{"__proto__":[1]}}',
    ) as NewEntry;
    const { entry: appended } = await store.append('s', entry);
    await store.close();
    assert.deepStrictEqual(Object.keys(appended.payload), ['name', 'data', '__proto__']);
    const out = path.join(dir, 'proto.tape.jsonl');
    await exportJsonl(tape, out);
    assert.match(fs.readFileSync(out, 'utf8'), /"payload":\{"name":"x\/y","data":1,"__proto__":\{"polluted":true\}\},"meta":\{"__proto__":\[1\]\}/);
    const [, back] = await entriesOf(out);
    assert.deepStrictEqual(Object.getOwnPropertyNames(back.meta), ['__proto__']);
    assert.strictEqual(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('a name or provenance key with a lone surrogate is refused: UTF-8 would store another one', async () => {
    const store = await TapeStore.open(path.join(dir, 'lone.tape.sqlite'));
    try {
      for (const entry of [
        { kind: 'event', name: 'x/\ud800', payload: { name: 'x/\ud800', data: 1 } },
        { kind: 'event', name: 'x/y', provenanceKey: 'k\udc00', payload: { name: 'x/y', data: 1 } },
      ] as NewEntry[]) {
        await assert.rejects(store.append('s', entry), (e: Error) => e instanceof TapeValidationError && /has a lone surrogate/.test(e.message));
      }
      // A lone surrogate inside a payload is fine: payloads are stored as JSON text, where it is an escape.
      const { entry } = await store.append('s', { kind: 'event', name: 'x/y', payload: { name: 'x/y', data: '\ud800' } });
      assert.strictEqual(store.getEntry('s', entry.entryId)?.payload.data, '\ud800');
    } finally {
      await store.close();
    }
  });
});
