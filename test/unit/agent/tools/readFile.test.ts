import * as assert from 'assert';
import { TempWorkspace } from './fixture';

describe('read_file', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace({ 'a.txt': 'one\ntwo\nthree\nfour\n', 'src/b.ts': 'export {};\n', 'img.bin': Buffer.from([0x89, 0x50, 0, 1, 2]) })));
  afterEach(() => ws.dispose());

  it('returns the whole file', async () => {
    assert.deepStrictEqual(await ws.call('read_file', { path: 'a.txt' }), { status: 'ok', output: 'one\ntwo\nthree\nfour\n' });
    assert.deepStrictEqual(await ws.call('read_file', { path: 'src/b.ts' }), { status: 'ok', output: 'export {};\n' });
  });

  it('returns lines startLine..endLine, 1-based and inclusive', async () => {
    assert.strictEqual((await ws.call('read_file', { path: 'a.txt', startLine: 2, endLine: 3 })).output, 'two\nthree\n');
    assert.strictEqual((await ws.call('read_file', { path: 'a.txt', startLine: 3 })).output, 'three\nfour\n');
    assert.strictEqual((await ws.call('read_file', { path: 'a.txt', endLine: 1 })).output, 'one\n');
    assert.strictEqual((await ws.call('read_file', { path: 'a.txt', startLine: 4, endLine: 99 })).output, 'four\n');
  });

  it('refuses a range past the end or backwards', async () => {
    const past = await ws.call('read_file', { path: 'a.txt', startLine: 9 });
    assert.strictEqual(past.status, 'error');
    assert.match(past.output, /has 4 lines/);
    const backwards = await ws.call('read_file', { path: 'a.txt', startLine: 3, endLine: 2 });
    assert.strictEqual(backwards.status, 'error');
    assert.match(backwards.output, /before startLine/);
  });

  it('gives a clear error for a directory, a binary file and a missing file', async () => {
    const dir = await ws.call('read_file', { path: 'src' });
    assert.strictEqual(dir.status, 'error');
    assert.match(dir.output, /src is a directory/);
    const bin = await ws.call('read_file', { path: 'img.bin' });
    assert.strictEqual(bin.status, 'error');
    assert.match(bin.output, /binary file/);
    const missing = await ws.call('read_file', { path: 'nope.txt' });
    assert.strictEqual(missing.status, 'error');
    assert.match(missing.output, /nope\.txt does not exist/);
  });
});
