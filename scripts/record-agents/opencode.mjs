// Records opencode sessions for test/fixtures/agents/opencode-<version>/ against a scripted model
// (opencode-server.mjs): installs opencode-ai into a temp folder, runs `opencode run` once per
// scenario (a read and an edit, a shell command, a subagent, an automatic compaction) in a scratch
// project with a scratch HOME, then copies opencode's database, unedited.
//   node scripts/record-agents/opencode.mjs [--version 1.18.33] [--out DIR]
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { startServer } from './opencode-server.mjs';

const { values } = parseArgs({ options: { version: { type: 'string', default: 'latest' }, out: { type: 'string' } } });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-opencode-'));
const home = path.join(work, 'home');
const proj = path.join(work, 'proj');
fs.mkdirSync(home);
fs.mkdirSync(proj);
execFileSync('npm', ['init', '-y'], { cwd: work, stdio: 'ignore' });
execFileSync('npm', ['install', `opencode-ai@${values.version}`], { cwd: work, stdio: 'inherit' });
const bin = path.join(work, 'node_modules', '.bin', 'opencode');
const version = execFileSync(bin, ['--version'], { env: { ...process.env, HOME: home } })
  .toString()
  .trim();

fs.writeFileSync(path.join(proj, 'a.txt'), 'hello from a.txt\n');
fs.writeFileSync(path.join(proj, 'b.txt'), 'bye from b.txt\n');
fs.writeFileSync(path.join(proj, 'c.txt'), 'see you\n');
const server = await startServer(path.join(work, 'requests.log'), proj);
const { port } = server.address();
const config = {
  provider: {
    local: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Local',
      options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'dummy' },
      // A small context, so that the scripted "big" read overflows it and opencode compacts.
      models: { m: { name: 'm', reasoning: true, tool_call: true, limit: { context: 8000, output: 1000 } } },
    },
  },
  model: 'local/m',
  small_model: 'local/m',
  autoupdate: false,
  share: 'disabled',
  permission: { edit: 'allow', bash: 'allow', read: 'allow' },
};
fs.writeFileSync(path.join(proj, 'opencode.json'), JSON.stringify(config, null, 2));

const env = {
  ...process.env,
  HOME: home,
  // opencode takes its folder from PWD, not from its working directory.
  PWD: proj,
  XDG_DATA_HOME: path.join(home, '.local', 'share'),
  XDG_CONFIG_HOME: path.join(home, '.config'),
  XDG_STATE_HOME: path.join(home, '.local', 'state'),
  XDG_CACHE_HOME: path.join(home, '.cache'),
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
};
const prompts = ['Read a.txt and change hello to howdy', 'Run ls', 'Ask a subagent what b.txt says', 'Read the big file c.txt'];
for (const prompt of prompts) {
  process.stdout.write(`opencode run ${JSON.stringify(prompt)}\n`);
  // Not execFileSync: the server answering opencode runs in this process. No stdin: opencode
  // would wait for it to end and read it as more prompt.
  const run = spawn(bin, ['run', prompt], { cwd: proj, env, timeout: 180_000, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise((resolve) => run.on('close', resolve));
  if (code !== 0) throw new Error(`opencode run ${JSON.stringify(prompt)} exited with ${code}`);
}
server.close();
// opencode's own checkpoint, so that the copy is its database without a megabytes-long log.
execFileSync(bin, ['db', 'PRAGMA wal_checkpoint(TRUNCATE)'], { cwd: proj, env });

const out = values.out ?? path.resolve('test/fixtures/agents', `opencode-${version}`);
const data = path.join(home, '.local', 'share', 'opencode');
fs.mkdirSync(out, { recursive: true });
// The shared-memory index is rebuilt from the log by whoever opens the database next.
for (const name of fs.readdirSync(data))
  if (/^opencode.*\.db(-wal)?$/.test(name) && fs.statSync(path.join(data, name)).size > 0) fs.copyFileSync(path.join(data, name), path.join(out, name));
process.stdout.write(`opencode ${version}: ${fs.readdirSync(out).join(', ')} in ${out}; requests in ${path.join(work, 'requests.log')}\n`);
