#!/usr/bin/env node
// `npm start`: builds the extension and opens the demo workspace in a real editor with it loaded
// from this checkout. Uses the desktop `code` when one is on PATH; otherwise the VS Code web
// workbench from the offline test environment on 127.0.0.1 (installed on first use), and prints
// the URL to open. Ctrl+C stops it.
import { spawnSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const demo = path.join(root, 'demo');
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('node', ['esbuild.mjs']);
const hasCode = spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasCode && !process.env.AGENT_TAPE_WEB) {
  spawn('code', ['--extensionDevelopmentPath', root, demo], { stdio: 'inherit' }).on('exit', (c) => process.exit(c ?? 0));
} else {
  run('bash', ['scripts/setup-test-env.sh']);
  run('npx', ['tsc', '-p', 'tsconfig.test.json']);
  const { ENV_DIR, startServer, workbenchUrl } = createRequire(import.meta.url)('../out/test/support/vscodeServer.js');
  const server = await startServer({
    port: Number(process.env.PORT) || 8080,
    dataDir: path.join(ENV_DIR, 'start-profile'), // settings and state survive between runs
  });
  console.log(`\nAgent Tape is running in VS Code (web) with the demo workspace. Open:\n\n  ${workbenchUrl(server, { folder: demo, extensionDevelopmentPath: root })}\n`);
  console.log('Open the Chat view (Ctrl+Alt+I) and ask @tape; without a model in the picker, set one up with "Tape: Manage Models…"');
  console.log('(any OpenAI-compatible server). "Tape: Open Inspector" shows the tape. Ctrl+C stops the server.');
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void server.stop().then(() => process.exit(0)));
  setInterval(() => {}, 1 << 30);
}
