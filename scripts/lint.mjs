// `npm run lint` (the first phase of `npm test`): ESLint, the layers and import cycles
// (dependency-cruiser, .dependency-cruiser.cjs), the formatter's check (Prettier), and the type
// checks per folder: host code without the DOM (src/tsconfig.json), the webview without Node's
// types (webview/tsconfig.json). Runs every check, then exits non-zero if any failed.
// `npm run format` rewrites the files Prettier would change.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const checks = [
  ['ESLint', bin('eslint'), ['.', '--max-warnings', '0']],
  ['layers and cycles', bin('depcruise'), ['src', 'webview', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']],
  ['format (Prettier)', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
  ['types: host code, no DOM', bin('tsc'), ['-p', 'src/tsconfig.json']],
  ['types: webview, no Node', bin('tsc'), ['-p', 'webview/tsconfig.json']],
];
const failed = [];
for (const [label, cmd, args] of checks) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  const ok = r.status === 0;
  console.log(`${ok ? '✔' : '✘'} ${label} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (!ok) failed.push(label);
}
if (failed.length) console.error(`lint failed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
