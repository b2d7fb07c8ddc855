import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../../..');

/**
 * What `npm run package` would put in the .vsix (`vsce ls` applies .vscodeignore), checked here,
 * after the build, against what the extension loads at run time: a webview whose bundle or
 * stylesheet is left out works from the checkout and is blank once installed.
 */
describe('the packaged extension', () => {
  let shipped: string[];
  before(() => {
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules/@vscode/vsce/vsce'), 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
    assert.strictEqual(r.status, 0, r.stderr);
    shipped = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().replace(/\\/g, '/'))
      .sort();
  });

  it('ships every bundle, stylesheet, font and WASM file the build makes, the icon, and the stylesheets the webviews use', () => {
    const built = fs
      .readdirSync(path.join(root, 'dist'))
      .filter((f) => !f.endsWith('.map'))
      .map((f) => `dist/${f}`);
    const icon = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { icon: string }).icon.replace(/^\.\//, '');
    const media = [
      icon,
      ...fs
        .readdirSync(path.join(root, 'media'))
        .filter((f) => f.endsWith('.css'))
        .map((f) => `media/${f}`),
    ];
    for (const f of [...built, ...media]) assert.ok(shipped.includes(f), `${f} is in the package`);
  });

  it('ships no sources, tests, source maps or node_modules', () => {
    assert.deepStrictEqual(
      shipped.filter((f) => /^(src|test|webview|node_modules|bench|scripts)\/|\.map$|\.ts$/.test(f)),
      [],
    );
  });
});
