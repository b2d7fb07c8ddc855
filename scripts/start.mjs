#!/usr/bin/env node
// `npm start`: builds the extension and opens the demo workspace in a real editor with it loaded
// from this checkout. Uses the desktop `code` when one is on PATH; otherwise the VS Code web
// workbench from the offline test environment on 127.0.0.1 (installed on first use), and prints
// the URL to open. Ctrl+C stops it. On a profile's first run the walkthrough "Get Started with
// Agent Tape" opens (scripts/first-run-walkthrough, loaded beside the extension).
import { spawnSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const demo = path.join(root, 'demo');
const firstRun = path.join(root, 'scripts', 'first-run-walkthrough');
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('node', ['esbuild.mjs']);
const hasCode = spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasCode && !process.env.AGENT_TAPE_WEB) {
  spawn('code', ['--extensionDevelopmentPath', root, '--extensionDevelopmentPath', firstRun, demo], { stdio: 'inherit' }).on('exit', (c) =>
    process.exit(c ?? 0),
  );
} else {
  run('bash', ['scripts/setup-test-env.sh']);
  run('npx', ['tsc', '-p', 'tsconfig.test.json']);
  const { ENV_DIR, startServer, workbenchUrl } = createRequire(import.meta.url)('../out/test/support/vscodeServer.js');
  const server = await startServer({
    port: Number(process.env.PORT) || 8080,
    dataDir: path.join(ENV_DIR, 'start-profile'), // settings and state survive between runs
    // The web workbench honours one development extension: the first-run helper is installed instead.
    extensionFolders: [firstRun],
  });
  console.log(
    `\nAgent Tape is running in VS Code (web) with the demo workspace. Open:\n\n  ${workbenchUrl(server, { folder: demo, extensionDevelopmentPath: root })}\n`,
  );
  console.log('The walkthrough opens on first run ("Welcome: Open Walkthrough…" → Get Started with Agent Tape brings it back):');
  console.log('samples/coding-session.tape.sqlite in the inspector and the debugger, then "Tape: Set Up a Model…" (finds');
  console.log('Ollama, LM Studio, llama.cpp, vLLM on this machine) and @tape in the Chat view (Ctrl+Alt+I). Ctrl+C stops the server.');
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void server.stop().then(() => process.exit(0)));
  setInterval(() => {}, 1 << 30);
}
