import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

/**
 * The `extensionTestsPath` contract shared by @vscode/test-electron and scripts/run-vscode-tests.mjs:
 * VS Code calls run() inside the extension host; a rejection fails the run.
 */
export function run(): Promise<void> {
  console.log('[agent-tape] integration suite starting'); // scripts/run-vscode-tests.mjs relays output from here on
  // AGENT_TAPE_GREP runs only the tests whose title matches, when working on one of them.
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    color: false,
    reporter: path.resolve(__dirname, '../../../test/reporter.js'),
    grep: process.env.AGENT_TAPE_GREP,
  });
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.test.js') ? [path.join(dir, d.name)] : []));
  for (const f of walk(__dirname).sort()) mocha.addFile(f);
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
