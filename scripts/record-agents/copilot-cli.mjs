#!/usr/bin/env node
// Records Copilot CLI sessions for test/fixtures/agents: installs @github/copilot into a temp folder,
// points it (BYOK) at the scripted model server beside this file, runs the scripted sessions with a
// scratch HOME and copies the session folders it wrote, unedited.
//   node scripts/record-agents/copilot-cli.mjs [--version X] [--out DIR]
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startServer } from './copilot-cli-server.mjs';

const { values } = parseArgs({ options: { version: { type: 'string' }, out: { type: 'string' } } });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-copilot-'));
const pkg = path.join(scratch, 'pkg');
const home = path.join(scratch, 'home');
const project = path.join(scratch, 'proj');
for (const dir of [pkg, home, project]) fs.mkdirSync(dir);
fs.writeFileSync(path.join(project, 'a.txt'), 'helo world\n');

execFileSync('npm', ['init', '-y'], { cwd: pkg, stdio: 'ignore' });
execFileSync('npm', ['install', `@github/copilot@${values.version ?? 'latest'}`], { cwd: pkg, stdio: 'inherit' });
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'node_modules/@github/copilot/package.json'), 'utf8')).version;
const out = path.resolve(values.out ?? `test/fixtures/agents/copilot-cli-${version}`);

const server = await startServer({ cwd: project, log: path.join(scratch, 'requests.jsonl') });
const env = {
  PATH: process.env.PATH,
  HOME: home,
  COPILOT_OFFLINE: 'true',
  COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
  COPILOT_PROVIDER_API_KEY: 'dummy',
  COPILOT_MODEL: 'gpt-4.1',
};
// Asynchronous: the model server answers from this same process.
const copilot = async (...args) =>
  (
    await promisify(execFile)(path.join(pkg, 'node_modules/.bin/copilot'), [...args, '--allow-all-tools'], {
      cwd: project,
      env,
      timeout: 180_000,
    })
  ).stdout;
const state = path.join(home, '.copilot/session-state');
const sessions = () => (fs.existsSync(state) ? fs.readdirSync(state).filter((name) => !name.startsWith('.')) : []);

try {
  // A read, an edit, a shell command and a subagent in one session, then its own /compact.
  await copilot('-p', 'Fix the typo in a.txt, show it, and have a subagent review it.');
  const [id, ...others] = sessions();
  if (!id || others.length > 0) throw new Error(`expected one session, found: ${sessions().join(', ')}`);
  await copilot(`--resume=${id}`, '-p', '/compact');

  fs.rmSync(out, { recursive: true, force: true });
  for (const session of sessions()) {
    // session.db is the agent's scratch database for its sql tool (192 KB empty), not its history.
    fs.cpSync(path.join(state, session), path.join(out, 'session-state', session), {
      recursive: true,
      filter: (from) => !/(^|\/)(session\.db|[^/]*\.lock)$/.test(from),
    });
  }
  console.log(`Copilot CLI ${version}: recorded into ${out}`);
} finally {
  server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
