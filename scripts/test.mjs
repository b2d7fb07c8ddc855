// `npm test`: the lint (scripts/lint.mjs), unit tests in Node, then the integration suite inside a
// real VS Code, then webview checks in a real browser. Prints one line `N passed, N failed[, N
// skipped]` over all the tests and exits non-zero when the lint or any suite fails or could not run
// at all (never a silent skip). `node scripts/test.mjs lint|unit|integration|webview` runs one phase.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv[2];
const phases = only ? [only] : ['lint', 'unit', 'integration', 'webview'];
const totals = { passed: 0, failed: 0, skipped: 0 };
const broken = [];

function sh(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function mocha(label, args, runner = ['node', [path.join(root, 'node_modules/mocha/bin/mocha.js')]]) {
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-results-')), 'tally.json');
  console.log(`\n=== ${label} ===`);
  const code = sh(runner[0], [...runner[1], ...args], { AGENT_TAPE_RESULTS: results });
  if (!fs.existsSync(results)) {
    broken.push(`${label}: the suite did not run to its end (exit ${code})`);
    return;
  }
  const t = JSON.parse(fs.readFileSync(results, 'utf8'));
  for (const k of Object.keys(totals)) totals[k] += t[k];
  if (code !== 0 && t.failed === 0) broken.push(`${label}: exited ${code}`);
}

const reporter = ['--reporter', path.join(root, 'test/reporter.js')];

// Compiled tests whose source is gone would still run (the suites load every *.test.js in out/).
for (const d of ['src', 'test', 'webview']) fs.rmSync(path.join(root, 'out', d), { recursive: true, force: true });
if (phases.includes('lint')) {
  console.log('\n=== lint ===');
  if (sh('node', ['scripts/lint.mjs']) !== 0) broken.push('lint failed (npm run lint says which check)');
}
const testPhases = phases.filter((p) => p !== 'lint');
if (testPhases.length && sh('npx', ['tsc', '-p', 'tsconfig.test.json']) !== 0) broken.push('TypeScript compilation failed');
else if (testPhases.length) {
  if (testPhases.some((p) => p !== 'unit') && sh('node', ['esbuild.mjs']) !== 0) broken.push('build failed');
  for (const phase of testPhases) {
    if (phase === 'unit') mocha('unit tests (Node)', [...reporter, '--recursive', 'out/test/unit']);
    else if (phase === 'integration' || phase === 'webview') {
      if (sh('bash', ['scripts/setup-test-env.sh']) !== 0) {
        broken.push(`${phase}: the real VS Code test environment could not be installed`);
        continue;
      }
      if (phase === 'integration') {
        mocha(
          'integration tests (real VS Code)',
          [],
          [
            'node',
            [
              'scripts/run-vscode-tests.mjs',
              '--extensionDevelopmentPath',
              '.',
              '--extensionTestsPath',
              'out/test/integration/index.js',
              '--installExtensionFolder',
              'test/fixtures/fake-lm',
              '--workspace',
              'demo',
            ],
          ],
        );
      } else {
        mocha('webview checks (Chromium)', [...reporter, '--timeout', '120000', '--recursive', 'out/test/webview']);
      }
    } else {
      console.error(`unknown phase ${phase}; use lint, unit, integration or webview`);
      process.exit(2);
    }
  }
}

for (const b of broken) console.error(`✘ ${b}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed || broken.length ? 1 : 0);
