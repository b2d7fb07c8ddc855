import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TempWorkspace } from './fixture';

describe('list_dir', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace({ 'b.txt': 'b', 'a.txt': 'a', 'src/x.ts': 'x', 'docs/y.md': 'y', '.env': 'z' })));
  afterEach(() => ws.dispose());

  it('lists entries sorted, directories with a trailing slash', async () => {
    assert.deepStrictEqual(await ws.call('list_dir', { path: '.' }), { status: 'ok', output: '.env\na.txt\nb.txt\ndocs/\nsrc/' });
    assert.deepStrictEqual(await ws.call('list_dir', { path: 'src' }), { status: 'ok', output: 'x.ts' });
  });

  it('says when a directory is empty, and refuses a file or a missing path', async () => {
    fs.mkdirSync(path.join(ws.root, 'empty'));
    assert.deepStrictEqual(await ws.call('list_dir', { path: 'empty' }), { status: 'ok', output: 'empty is empty' });
    const file = await ws.call('list_dir', { path: 'a.txt' });
    assert.strictEqual(file.status, 'error');
    assert.match(file.output, /a\.txt is a file/);
    const missing = await ws.call('list_dir', { path: 'nope' });
    assert.strictEqual(missing.status, 'error');
    assert.match(missing.output, /does not exist/);
  });
});
