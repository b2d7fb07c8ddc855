// Records Gemini CLI sessions for test/fixtures/agents/gemini-cli-<version>/ against a scripted model
// (gemini-server.mjs): installs @google/gemini-cli into a temp folder, runs `gemini -p … --yolo` once
// per scenario (a read and an edit, a shell command, a subagent, a compression on resuming) in a
// scratch project with a scratch HOME, then copies its chat logs, unedited.
//   node scripts/record-agents/gemini.mjs [--version 0.61.0] [--out DIR]
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { startServer } from './gemini-server.mjs';

const { values } = parseArgs({ options: { version: { type: 'string', default: 'latest' }, out: { type: 'string' } } });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-gemini-'));
const home = path.join(work, 'home');
const proj = path.join(work, 'proj');
fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
fs.mkdirSync(proj);
execFileSync('npm', ['init', '-y'], { cwd: work, stdio: 'ignore' });
execFileSync('npm', ['install', `@google/gemini-cli@${values.version}`], { cwd: work, stdio: 'inherit' });
const version = JSON.parse(fs.readFileSync(path.join(work, 'node_modules', '@google', 'gemini-cli', 'package.json'), 'utf8')).version;

fs.writeFileSync(path.join(proj, 'a.txt'), 'hello from a.txt\n');
fs.writeFileSync(path.join(proj, 'b.txt'), 'bye from b.txt\n');
fs.writeFileSync(path.join(proj, 'c.txt'), 'see you\n');
const settings = {
  telemetry: { enabled: false },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  // So small that a resumed session compresses its history before its next request.
  model: { compressionThreshold: 0.0001 },
};
fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));

const server = await startServer(path.join(work, 'requests.log'), proj);
const env = {
  ...process.env,
  HOME: home,
  PWD: proj,
  GEMINI_API_KEY: 'dummy',
  GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  GEMINI_CLI_NO_RELAUNCH: 'true',
};
const bin = path.join(work, 'node_modules', '.bin', 'gemini');
/** One non-interactive run; not execFileSync, as the server answering it runs in this process. */
async function gemini(...args) {
  process.stdout.write(`gemini ${args.join(' ')}\n`);
  const run = spawn(bin, [...args, '--yolo', '-m', 'gemini-2.5-flash'], { cwd: proj, env, timeout: 180_000, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise((resolve) => run.on('close', resolve));
  if (code !== 0) throw new Error(`gemini ${args.join(' ')} exited with ${code}`);
}
await gemini('-p', 'Read a.txt and change hello to howdy');
await gemini('-p', 'Run ls');
await gemini('-p', 'Ask a subagent what b.txt says');
await gemini('-p', 'Read the big file c.txt');
await gemini('--resume', 'latest', '-p', 'Now say it again');
server.close();

const out = values.out ?? path.resolve('test/fixtures/agents', `gemini-cli-${version}`);
const tmp = path.join(home, '.gemini', 'tmp');
for (const project of fs.readdirSync(tmp)) {
  const chats = path.join(tmp, project, 'chats');
  if (fs.existsSync(chats)) fs.cpSync(chats, path.join(out, 'chats'), { recursive: true });
}
process.stdout.write(`Gemini CLI ${version}: ${path.join(out, 'chats')}; requests in ${path.join(work, 'requests.log')}\n`);
