// `npm run screenshots`: takes the README's pictures (docs/images/*.png) again from the real web
// workbench, with the extension as built from this tree: the chat, a restore's plan, the inspector
// in a dark and a light theme, the replay in the debugger. Not part of `npm test`: it writes files.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outDir = path.join(root, 'docs/images');

function sh(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`screenshots: ${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(1);
  }
}

sh('bash', ['scripts/setup-test-env.sh']);
sh('npx', ['tsc', '-p', 'tsconfig.test.json']);
sh('node', ['esbuild.mjs']);
const { takeProductScreenshots } = createRequire(import.meta.url)(path.join(root, 'out/test/webview/productScreenshots.js'));
const written = await takeProductScreenshots(outDir, (line) => console.log(line));
const bytes = written.reduce((n, f) => n + fs.statSync(f).size, 0);
console.log(`${written.length} screenshots, ${(bytes / 1024).toFixed(0)} KiB, in ${path.relative(root, outDir)}/`);
