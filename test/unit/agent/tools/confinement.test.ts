import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TempWorkspace } from './fixture';

describe('workspace confinement', () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace({ 'src/a.txt': 'inside\n' });
    fs.symlinkSync(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'link.txt'));
    fs.symlinkSync(ws.outside, path.join(ws.root, 'outdir'), 'dir');
    fs.symlinkSync(path.join(ws.root, 'src'), path.join(ws.root, 'srclink'), 'dir');
  });
  afterEach(() => ws.dispose());

  async function refused(tool: string, input: object, pattern: RegExp): Promise<void> {
    const result = await ws.call(tool, input);
    assert.strictEqual(result.status, 'error', `${tool} ${JSON.stringify(input)} should be refused`);
    assert.match(result.output, pattern);
    assert.doesNotMatch(result.output, /SECRET/);
  }

  it('refuses ../ escapes and absolute paths outside the root', async () => {
    await refused('read_file', { path: '../outside/secret.txt' }, /outside the workspace root/);
    await refused('read_file', { path: 'src/../../outside/secret.txt' }, /outside the workspace root/);
    await refused('read_file', { path: '/etc/passwd' }, /"\/etc\/passwd" is outside the workspace root/);
    await refused('list_dir', { path: '..' }, /outside the workspace root/);
  });

  it('refuses a symlink to a file outside, and a symlinked directory inside that points outside', async () => {
    await refused('read_file', { path: 'link.txt' }, /leads outside the workspace root through a symlink/);
    await refused('read_file', { path: 'outdir/secret.txt' }, /through a symlink/);
    await refused('list_dir', { path: 'outdir' }, /through a symlink/);
  });

  it('writes nothing outside, through any of these paths', async () => {
    await refused('apply_edit', { path: '../outside/new.txt', newText: 'x' }, /outside the workspace root/);
    await refused('apply_edit', { path: path.join(ws.outside, 'abs.txt'), newText: 'x' }, /outside the workspace root/);
    await refused('apply_edit', { path: 'link.txt', newText: 'x' }, /through a symlink/);
    await refused('apply_edit', { path: 'outdir/new.txt', newText: 'x' }, /through a symlink/);
    await refused('apply_edit', { path: 'outdir/deeper/new.txt', newText: 'x' }, /through a symlink/);
    fs.symlinkSync(path.join(ws.outside, 'dangling.txt'), path.join(ws.root, 'dangling.txt'));
    await refused('apply_edit', { path: 'dangling.txt', newText: 'x' }, /symlink whose target does not exist/);
    assert.deepStrictEqual(fs.readdirSync(ws.outside), ['secret.txt']);
    assert.strictEqual(fs.readFileSync(path.join(ws.outside, 'secret.txt'), 'utf8'), 'SECRET\n');
  });

  it('accepts paths with .. that stay inside, absolute paths inside, and symlinks that stay inside', async () => {
    assert.deepStrictEqual(await ws.call('read_file', { path: 'src/../src/./a.txt' }), { status: 'ok', output: 'inside\n' });
    assert.deepStrictEqual(await ws.call('read_file', { path: path.join(ws.root, 'src', 'a.txt') }), { status: 'ok', output: 'inside\n' });
    assert.deepStrictEqual(await ws.call('read_file', { path: 'srclink/a.txt' }), { status: 'ok', output: 'inside\n' });
    assert.deepStrictEqual(await ws.call('apply_edit', { path: 'src/../b.txt', newText: 'b' }), { status: 'ok', output: 'created src/../b.txt' });
    assert.strictEqual(ws.read('b.txt'), 'b');
  });

  it('find_files and search_text never follow symlinks out', async () => {
    assert.strictEqual((await ws.call('find_files', { pattern: '**/*.txt' })).output, 'src/a.txt');
    assert.deepStrictEqual(await ws.call('search_text', { query: 'SECRET' }), { status: 'ok', output: 'no matches for "SECRET"' });
  });
});
