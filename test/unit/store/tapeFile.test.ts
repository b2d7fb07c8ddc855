import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { exportJsonl, importJsonl, openTapeFile } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, message, tempDir } from './helpers';

const line = (o: Record<string, unknown>): string =>
  `${JSON.stringify({ sessionId: 's', entryId: 1, kind: 'anchor', name: 'session/start', provenanceKey: null, payload: { name: 'session/start', state: {} }, meta: {}, createdAt: 1, ...o })}\n`;

describe('tape files: JSONL import/export refusals', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function refusedImport(text: string, pattern: RegExp, lineNo: number): Promise<void> {
    const src = path.join(dir, 'in.tape.jsonl');
    fs.writeFileSync(src, text);
    const before = fingerprint(src);
    const dst = path.join(dir, 'out.tape.sqlite');
    await assert.rejects(
      importJsonl(src, dst),
      (e: Error) => e instanceof TapeFileError && e.message.startsWith(`${src}:${lineNo}:`) && pattern.test(e.message),
    );
    assert.ok(!fs.existsSync(dst), 'no destination was written');
    assert.deepStrictEqual(fingerprint(src), before);
    await assert.rejects(openTapeFile(src, { readOnly: true }), pattern);
  }

  it('a broken line names the file and line', () => refusedImport(line({}) + '{"sessionId": "s", "entryId": 2,\n', /not a JSON line/, 2));
  it('a gap in entry ids', () => refusedImport(line({}) + line({ entryId: 3, provenanceKey: 'x' }), /gap before entry id 3/, 2));
  it('a duplicate entry id', () => refusedImport(line({}) + line({ provenanceKey: 'x' }), /duplicate or out-of-order entry id 1/, 2));
  it('an invalid payload', () =>
    refusedImport(line({}) + line({ entryId: 2, kind: 'message', name: 'message/user', payload: { role: 'user' } }), /messageId/, 2));
  it('a repeated provenance key', () =>
    refusedImport(line({ provenanceKey: 'k' }) + line({ entryId: 2, provenanceKey: 'k' }), /provenance key "k" appears twice/, 2));

  it('never overwrites an existing destination, either way', async () => {
    const src = path.join(dir, 'in.tape.jsonl');
    fs.writeFileSync(src, line({}));
    const dst = path.join(dir, 'out.tape.sqlite');
    fs.writeFileSync(dst, 'precious');
    await assert.rejects(importJsonl(src, dst), /already exists/);
    assert.strictEqual(fs.readFileSync(dst, 'utf8'), 'precious');
    const store = await TapeStore.open(path.join(dir, 'a.tape.sqlite'));
    await store.append('s', message('m', 'x'));
    await store.close();
    const out = path.join(dir, 'exists.tape.jsonl');
    fs.writeFileSync(out, 'precious');
    await assert.rejects(exportJsonl(path.join(dir, 'a.tape.sqlite'), out), /already exists/);
    assert.strictEqual(fs.readFileSync(out, 'utf8'), 'precious');
  });

  it('a JSONL tape opens read-only in memory', async () => {
    const src = path.join(dir, 'in.tape.jsonl');
    fs.writeFileSync(src, line({}));
    const t = await openTapeFile(src, { readOnly: true });
    assert.strictEqual(t.headEntryId('s'), 1);
    await assert.rejects(t.append('s', message('m', 'x')), /read-only/);
    await t.close();
    await assert.rejects(openTapeFile(src), /read-only/);
  });
});

describe('a closed store', () => {
  it('says it is closed instead of failing inside SQLite', async () => {
    const store = await TapeStore.inMemory();
    await store.append('s', message('m1', 'hi'));
    await store.close();
    assert.throws(() => store.entries('s'), /the in-memory tape is closed; open it again/);
    assert.throws(() => store.sessions(), /is closed/);
  });
});
