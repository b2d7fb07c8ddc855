import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { MAX_FILE_READ_BYTES } from '../../../../src/agent/tools/tool';
import { writeNoFollow } from '../../../../src/agent/workspace/noFollowWrite';
import { TempWorkspace } from './fixture';

const posix = process.platform !== 'win32';

describe('what the tools read and write on disk', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace()));
  afterEach(() => ws.dispose());

  it('read_file reads no more than its cap: the start of an 8 GiB (sparse) file, not an error', async function () {
    this.timeout(20_000);
    const head = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}\n`).join('');
    const file = path.join(ws.root, 'huge.log');
    fs.writeFileSync(file, head);
    fs.truncateSync(file, 8 * 1024 ** 3);
    assert.deepStrictEqual(await ws.call('read_file', { path: 'huge.log', startLine: 2, endLine: 3 }), { status: 'ok', output: 'line 2\nline 3\n' });
  });

  it('read_file says where its cap ends the file, and reads only whole lines before it', async () => {
    const line = `${'x'.repeat(1023)}\n`;
    const lines = MAX_FILE_READ_BYTES / line.length;
    ws.write('big.txt', line.repeat(lines) + 'past the cap\n');
    const last = await ws.call('read_file', { path: 'big.txt', startLine: lines });
    assert.strictEqual(last.status, 'ok');
    assert.strictEqual(last.truncated, true);
    assert.strictEqual(
      last.output,
      `${line}\n[read_file reads the first 4 MiB of big.txt (${MAX_FILE_READ_BYTES + 13} bytes), which hold ${lines} lines; the rest cannot be read]`,
    );
    const past = await ws.call('read_file', { path: 'big.txt', startLine: lines + 1 });
    assert.strictEqual(past.status, 'error');
    assert.match(past.output, new RegExp(`which hold ${lines} lines; startLine ${lines + 1} is past them`));
    assert.strictEqual((await ws.call('read_file', { path: 'big.txt' })).truncated, true);
  });

  (posix ? it : it.skip)('read_file refuses a FIFO at once instead of waiting for a writer', async function () {
    this.timeout(10_000);
    execFileSync('mkfifo', [path.join(ws.root, 'pipe')]);
    const result = await ws.call('read_file', { path: 'pipe' });
    assert.deepStrictEqual(result, { status: 'error', output: 'read_file failed: pipe is a FIFO (named pipe), not a regular file; refusing to read it' });
  });

  it('apply_edit refuses a file over the cap instead of writing back only the part it read', async () => {
    const content = `start\n${'y'.repeat(MAX_FILE_READ_BYTES)}\nend\n`;
    ws.write('big.txt', content);
    const result = await ws.call('apply_edit', { path: 'big.txt', oldText: 'start', newText: 'START' });
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /big\.txt is \d+ bytes, over the 4194304 bytes apply_edit edits; it was not changed/);
    assert.strictEqual(ws.read('big.txt'), content);
  });

  (posix ? it : it.skip)('a write does not follow a symlink swapped in after the path was checked', async () => {
    const outside = path.join(ws.outside, 'secret.txt');
    const link = path.join(ws.root, 'swapped.txt');
    fs.symlinkSync(outside, link);
    // What writeFile does once confine has resolved the path, as if the link appeared just after.
    await assert.rejects(writeNoFollow(link, 'swapped.txt', 'overwritten'), /swapped\.txt became a symlink after it was checked; refusing to write through it/);
    assert.strictEqual(fs.readFileSync(outside, 'utf8'), 'SECRET\n');
    await assert.rejects(ws.ctx().workspace.writeFile('swapped.txt', 'overwritten'), /through a symlink/);
    assert.strictEqual(fs.readFileSync(outside, 'utf8'), 'SECRET\n');
  });
});
