#!/usr/bin/env node
// Runs an `extensionTestsPath` module inside a real VS Code (1.139 server + web workbench in
// headless Chromium) with the @vscode/test-electron contract: run() resolving = pass. Exit code:
// 0 passed, 1 tests failed, 2 VS Code could not start, 124 time-out.
//   node scripts/run-vscode-tests.mjs --extensionDevelopmentPath . --extensionTestsPath out/test/integration/index.js
//     [--installExtensionFolder test/fixtures/fake-lm]… [--workspace demo] [--timeout 300]
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import { chromium } from 'playwright-core';
import { createRequire } from 'node:module';

// Compiled from test/support/vscodeServer.ts (npm test and npm start compile it first).
const { CHROMIUM, CHROMIUM_ARGS, startServer, workbenchUrl } = createRequire(import.meta.url)('../out/test/support/vscodeServer.js');

const argv = process.argv.slice(2);
const opts = (name) => argv.flatMap((a, i) => (a === `--${name}` ? [argv[i + 1]] : []));
const opt = (name, fallback) => opts(name)[0] ?? fallback;
const devPaths = opts('extensionDevelopmentPath').map((p) => path.resolve(p));
if (devPaths.length !== 1 || !opt('extensionTestsPath')) {
  console.error(
    'usage: run-vscode-tests.mjs --extensionDevelopmentPath DIR --extensionTestsPath FILE [--installExtensionFolder DIR]… [--workspace DIR] [--timeout S]',
  );
  process.exit(2);
}
const testsPath = path.resolve(opt('extensionTestsPath'));
const workspace = opt('workspace') && path.resolve(opt('workspace'));
const verbose = Boolean(process.env.VSCODE_TEST_VERBOSE);
const SUITE_START_MARKER = '[agent-tape] integration suite starting'; // printed by test/integration/index.ts
const timeoutMs = Number(opt('timeout', '300')) * 1000;
const t0 = Date.now();
const log = (...a) => console.log(`[vscode-test ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

let server, browser, exitCode;
const watchdog = setTimeout(async () => {
  log(`time-out after ${timeoutMs / 1000}s`);
  await shutdown(124);
}, timeoutMs);
async function shutdown(code) {
  clearTimeout(watchdog);
  await browser?.close().catch(() => {});
  await server?.stop();
  log('exit code', code);
  if (code === 0 && server && !process.env.KEEP_RUN_DIR) fs.rmSync(server.dir, { recursive: true, force: true });
  else if (server) log('server log and profile kept in', server.dir);
  process.exit(code);
}

try {
  server = await startServer({ extensionFolders: opts('installExtensionFolder').map((p) => path.resolve(p)) });
  log('VS Code server up on', server.base);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // The smoke-test driver hands the extension host's console and exit code to these two hooks.
  // The workbench's own chatter (`[AgentHost] …`, start-up errors about unreachable hosts) is
  // dropped unless VSCODE_TEST_VERBOSE is set: relay from the suite's start marker on.
  let started = verbose;
  await page.exposeFunction('codeAutomationLog', (_type, args) => {
    const line = util.format(...(args || []));
    if (line.includes(SUITE_START_MARKER)) started = true;
    else if (started && (verbose || !/^\[[\w .:-]+\] /.test(line))) console.log(line);
  });
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (code) => resolve(code)));
  await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPath: devPaths[0], extensionTestsPath: testsPath }));
  exitCode = (await exited) === 0 ? 0 : 1;
  if (exitCode !== 0 && process.env.VSCODE_TEST_SCREENSHOT) await page.screenshot({ path: process.env.VSCODE_TEST_SCREENSHOT }).catch(() => {});
} catch (e) {
  log('could not run the tests in VS Code:', e?.stack ?? e);
  exitCode = 2;
}
await shutdown(exitCode);
