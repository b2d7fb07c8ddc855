#!/usr/bin/env node
// The same integration suite under the standard launcher, desktop VS Code via
// @vscode/test-electron, for machines with internet access (it downloads VS Code on first use).
// Run with `npm run test:electron`.
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
try {
  await runTests({
    version: process.env.VSCODE_VERSION || 'stable',
    extensionDevelopmentPath: [root, path.join(root, 'test/fixtures/fake-lm')], // desktop honours several
    extensionTestsPath: path.join(root, 'out/test/integration/index.js'),
    launchArgs: [path.join(root, 'demo'), '--disable-workspace-trust'],
  });
} catch (e) {
  console.error('integration tests failed or VS Code could not start:', e);
  process.exit(1);
}
