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
  // extension.test.js first: it checks that nothing activated the extension before its first
  // command, which any other file's test would do, whatever its name sorts as.
  const first = (f: string) => (path.basename(f) === 'extension.test.js' ? 0 : 1);
  for (const f of walk(__dirname).sort((a, b) => first(a) - first(b) || (a < b ? -1 : a > b ? 1 : 0))) mocha.addFile(f);
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
