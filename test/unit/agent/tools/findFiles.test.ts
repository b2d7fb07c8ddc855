import * as assert from 'assert';
import { TempWorkspace } from './fixture';
import { MAX_FOUND_FILES } from '../../../../src/agent/tools/findFiles';

describe('find_files', () => {
  let ws: TempWorkspace;
  afterEach(() => ws.dispose());

  it('matches a glob over workspace-relative paths, sorted', async () => {
    ws = new TempWorkspace({ 'src/a.ts': '', 'src/deep/b.ts': '', 'src/c.js': '', 'top.ts': '', 'README.md': '' });
    assert.deepStrictEqual(await ws.call('find_files', { pattern: 'src/**/*.ts' }), { status: 'ok', output: 'src/a.ts\nsrc/deep/b.ts' });
    // Without a slash the pattern matches file names at any depth.
    assert.deepStrictEqual(await ws.call('find_files', { pattern: '*.ts' }), { status: 'ok', output: 'src/a.ts\nsrc/deep/b.ts\ntop.ts' });
    assert.deepStrictEqual(await ws.call('find_files', { pattern: '*.py' }), { status: 'ok', output: 'no files match *.py' });
  });

  it('respects .gitignore, nested ones and negations included, and skips .git', async () => {
    ws = new TempWorkspace({
      '.gitignore': 'node_modules/\n*.log\nbuild\n',
      'node_modules/pkg/index.js': '',
      'build/out.js': '',
      'app.log': '',
      'src/app.js': '',
      'src/.gitignore': 'gen/\n!keep.log\n',
      'src/gen/g.js': '',
      'src/keep.log': '',
      'src/drop.log': '',
      '.git/config': '',
    });
    assert.deepStrictEqual(await ws.call('find_files', { pattern: '**/*' }), { status: 'ok', output: '.gitignore\nsrc/.gitignore\nsrc/app.js\nsrc/keep.log' });
  });

  it('caps the count and says so', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < MAX_FOUND_FILES + 5; i++) files[`f/${String(i).padStart(5, '0')}.txt`] = '';
    ws = new TempWorkspace(files);
    const result = await ws.call('find_files', { pattern: 'f/*.txt' });
    assert.strictEqual(result.status, 'ok');
    assert.strictEqual(result.truncated, true);
    const lines = result.output.split('\n');
    assert.strictEqual(lines.length, MAX_FOUND_FILES + 1);
    assert.strictEqual(lines[0], 'f/00000.txt');
    assert.match(lines[MAX_FOUND_FILES], /more than 1000 files/);
  });
});
