import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { jsonlLine } from '../../../src/store/jsonl';
import * as rowWriter from '../../../src/store/rowWriter';
import { exportJsonl, exportSession, importJsonl } from '../../../src/store/tapeFile';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { safeJsonText } from '../../../src/tape/safeJsonText';
import { message, tempDir } from './helpers';

const PAGE_CHARS = 2000;

/** Text that JSON and the line format must carry exactly: CJK, emoji, a lone surrogate, control characters, U+2028. */
const UNICODE = '数据库 迁移 🚀 \ud83d lone \u0007bell\u001b[31m \u2028 "quoted" \\ back\tslash';

type Write = (this: fs.promises.FileHandle, ...args: unknown[]) => Promise<unknown>;

/** Replaces FileHandle.prototype.write (Node exports no FileHandle class) while `run` runs. */
async function patchingWrite<T>(patch: (write: Write) => Write, run: () => Promise<T>): Promise<T> {
  const probe = await fs.promises.open(__filename, 'r');
  const proto = Object.getPrototypeOf(probe) as { write: Write };
  await probe.close();
  const write = proto.write;
  proto.write = patch(write);
  try {
    return await run();
  } finally {
    proto.write = write;
  }
}

/** Every write to a file while `run` runs (an export's only writes). */
async function writesDuring<T>(run: () => Promise<T>): Promise<{ result: T; writes: Buffer[] }> {
  const writes: Buffer[] = [];
  const result = await patchingWrite(
    (write) =>
      function (...args) {
        writes.push(Buffer.from(args[0] as Uint8Array));
        return write.apply(this, args);
      },
    run,
  );
  return { result, writes };
}

/**
 * Each write is whole lines, in order, and holds at most one row past PAGE_CHARS of payload and
 * meta: what the export holds at a time is bounded by the page, not by the tape. Only the last
 * write ends before its page is full.
 */
function assertPaged(writes: readonly Buffer[], rows: readonly RawEntry[]): void {
  let next = 0;
  for (const [i, w] of writes.entries()) {
    const lines = w.toString('utf8').split('\n').slice(0, -1);
    const page = rows.slice(next, next + lines.length);
    assert.strictEqual(w.toString('utf8'), page.map(jsonlLine).join(''), `write ${i} is the next rows' lines, whole`);
    const chars = page.map((r) => r.payload.length + r.meta.length);
    const beforeLast = chars.slice(0, -1).reduce((a, b) => a + b, 0);
    assert.ok(beforeLast < PAGE_CHARS, `write ${i} has ${beforeLast} chars before its last row`);
    if (i < writes.length - 1) assert.ok(beforeLast + chars[chars.length - 1] >= PAGE_CHARS, `write ${i} ends before its page is full`);
    next += lines.length;
  }
  assert.strictEqual(next, rows.length, 'every row written once');
}

describe('export streams: a tape of any size is written a page at a time', function () {
  // Several exports and a 300 KB entry: a few seconds when the machine is busy.
  this.timeout(20_000);
  let dir: string;
  let file: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir, 'src.tape.sqlite');
    store = await TapeStore.open(file);
    // Sessions interleaved, so append order (the tape's) differs from session order.
    for (let i = 1; i <= 40; i++) {
      const s = ['a', 'b', 'c'][i % 3];
      await store.append(s, message(`m${i}`, `${UNICODE} #${i} ${'x'.repeat(i * 37)}`, { key: `k${i}` }));
    }
    await store.append('b', message('big', 'y'.repeat(300_000)));
    await store.append('a', message('after-big', UNICODE));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const leftovers = (): string[] => fs.readdirSync(dir).filter((f) => f.includes('.tmp-'));

  it('exportJsonl writes the same bytes as the whole tape joined, in many bounded writes', async () => {
    await store.close();
    store = await TapeStore.open(file, { readOnly: true });
    const rows = store.rawEntries(null);
    const expected = rows.map(jsonlLine).join('');
    const dst = path.join(dir, 'out.tape.jsonl');
    const { result, writes } = await writesDuring(() => exportJsonl(file, dst, { pageChars: PAGE_CHARS }));
    assert.deepStrictEqual(result, { entries: rows.length });
    assert.strictEqual(fs.readFileSync(dst, 'utf8'), expected);
    assert.ok(writes.length > 10, `${writes.length} writes`);
    assertPaged(writes, rows);

    // The default page size gives the same bytes, and so does exporting that export again.
    await exportJsonl(file, path.join(dir, 'default.tape.jsonl'));
    assert.strictEqual(fs.readFileSync(path.join(dir, 'default.tape.jsonl'), 'utf8'), expected);
    await exportJsonl(dst, path.join(dir, 'again.tape.jsonl'), { pageChars: PAGE_CHARS });
    assert.strictEqual(fs.readFileSync(path.join(dir, 'again.tape.jsonl'), 'utf8'), expected);
    await importJsonl(dst, path.join(dir, 'back.tape.sqlite'));
    await exportJsonl(path.join(dir, 'back.tape.sqlite'), path.join(dir, 'back.tape.jsonl'), { pageChars: PAGE_CHARS });
    assert.strictEqual(fs.readFileSync(path.join(dir, 'back.tape.jsonl'), 'utf8'), expected);
    assert.deepStrictEqual(leftovers(), []);
  });

  it('exportSession to JSONL writes that session only, same bytes, in many bounded writes', async () => {
    const rows = store.rawEntries('a');
    const dst = path.join(dir, 'a.tape.jsonl');
    const { result, writes } = await writesDuring(() => exportSession(store, 'a', dst, { pageChars: PAGE_CHARS }));
    assert.deepStrictEqual(result, { entries: rows.length });
    assert.strictEqual(fs.readFileSync(dst, 'utf8'), rows.map(jsonlLine).join(''));
    assert.ok(writes.length > 3, `${writes.length} writes`);
    assertPaged(writes, rows);
  });

  it('exportSession to .tape.sqlite fills the copy a page at a time, entries exact', async () => {
    const rows = store.rawEntries('b');
    const batches: number[] = [];
    const insertRows = rowWriter.insertRows;
    (rowWriter as { insertRows: typeof insertRows }).insertRows = (db, batch) => {
      batches.push(batch.length);
      insertRows(db, batch);
    };
    try {
      assert.deepStrictEqual(await exportSession(store, 'b', path.join(dir, 'b.tape.sqlite'), { pageChars: PAGE_CHARS }), { entries: rows.length });
    } finally {
      (rowWriter as { insertRows: typeof insertRows }).insertRows = insertRows;
    }
    assert.ok(batches.length > 3, `${batches.length} batches`);
    assert.ok(Math.max(...batches) < rows.length / 2, `batches of ${batches.join(', ')} rows`);
    const copy = await TapeStore.open(path.join(dir, 'b.tape.sqlite'), { readOnly: true });
    try {
      // As an import of the session's JSONL has them: the same values, with what the JSONL escapes (U+2028 here) escaped.
      assert.deepStrictEqual(
        copy.rawEntries(null),
        rows.map((r) => ({ ...r, payload: safeJsonText(r.payload), meta: safeJsonText(r.meta) })),
      );
      assert.ok(
        rows.some((r) => r.payload !== safeJsonText(r.payload)),
        'the session has text the JSONL escapes',
      );
    } finally {
      await copy.close();
    }
  });

  it('a session deleted while it is exported fails the export, leaving no file and no temp file', async () => {
    const dst = path.join(dir, 'a.tape.jsonl');
    let deleted = false;
    await patchingWrite(
      (write) =>
        async function (...args) {
          if (!deleted) {
            deleted = true;
            await store.deleteSession('a');
          }
          return write.apply(this, args);
        },
      () => assert.rejects(exportSession(store, 'a', dst, { pageChars: PAGE_CHARS }), /session "a" of .* was deleted while it was read/),
    );
    assert.ok(deleted);
    assert.ok(!fs.existsSync(dst));
    assert.deepStrictEqual(leftovers(), []);
  });
});
