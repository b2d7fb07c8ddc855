// Records Claude Code sessions against a scripted model server on 127.0.0.1, for the ingest tests:
//   node scripts/record-agents/claude-code.mjs [--version X] [--out DIR] [--install DIR]
// installs @anthropic-ai/claude-code@X (latest by default) into a temp folder (or uses the one in
// --install), runs the scripted sessions in a scratch project with a scratch HOME, and copies what
// Claude Code wrote under ~/.claude/projects/ into DIR (test/fixtures/agents/claude-code-<X>/ by default).
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileURLToPath } from 'url';
import { startServer } from './claude-code-server.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-claude-code-'));
const install = arg('--install') ?? path.join(work, 'install');
if (!arg('--install')) {
  fs.mkdirSync(install);
  execFileSync('npm', ['init', '-y'], { cwd: install, stdio: 'ignore' });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', `@anthropic-ai/claude-code@${arg('--version') ?? 'latest'}`], { cwd: install, stdio: 'inherit' });
}
const pkg = path.join(install, 'node_modules/@anthropic-ai/claude-code');
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
// The package's bin is the native binary for this platform (its postinstall only copies it there when npm skipped that).
const claude = path.join(pkg, 'bin/claude.exe');
const out = path.resolve(arg('--out') ?? path.join(repo, `test/fixtures/agents/claude-code-${version}`));

const home = path.join(work, 'home');
const project = path.join(work, 'proj');
fs.mkdirSync(home);
fs.mkdirSync(project);
fs.writeFileSync(path.join(project, 'a.txt'), 'hello world\n');
fs.writeFileSync(path.join(project, 'b.txt'), 'bravo\n');
const log = path.join(work, 'requests.jsonl');
const { server, port } = await startServer({ log, project: fs.realpathSync(project) });

const env = {
  PATH: process.env.PATH,
  HOME: home,
  TERM: 'dumb',
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
  ANTHROPIC_API_KEY: 'dummy',
  DISABLE_AUTOUPDATER: '1',
  // Claude Code refuses --dangerously-skip-permissions as root unless told it runs in a sandbox.
  IS_SANDBOX: '1',
  // A small limit, so that a short command's output is already kept apart in tool-results/.
  BASH_MAX_OUTPUT_LENGTH: '1000',
};
/**
 * A short system prompt and only the tools the script calls: Claude Code records both (the
 * prompt snapshot and the request shape) in every session, at 40 KB each with its defaults.
 */
const SMALL = ['--system-prompt', 'You are Claude Code, recording a scripted test session.', '--tools', 'Read,Edit,Bash,Agent'];
/** One `claude -p` run (not spawnSync: the server answers from this process); its JSON result, which names the session. */
function run(args) {
  const child = spawn(claude, ['--dangerously-skip-permissions', '--output-format', 'json', ...SMALL, ...args], { cwd: project, env, timeout: 180_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) =>
    child.on('close', (status) => {
      if (status !== 0) return reject(new Error(`claude ${args.join(' ')} failed (${status}): ${stderr}${stdout}`));
      const result = JSON.parse(stdout);
      console.log(`${args.join(' ')} -> ${result.session_id}: ${String(result.result).slice(0, 80)}`);
      resolve(result);
    }),
  );
}

try {
  // A read, an edit and a shell command whose output is large enough to be kept apart; then its compaction.
  const a = await run(['-p', 'TAPE-A: read a.txt, change hello world to hello tape, then list the files.']);
  await run(['--resume', a.session_id, '-p', '/compact']);
  await run(['--resume', a.session_id, '-p', 'TAPE-A2: what does a.txt say now?']);
  // A subagent through the Agent tool.
  await run(['-n', 'Scripted session B', '-p', 'TAPE-B: ask a subagent what b.txt holds.']);
} finally {
  server.close();
}

const projects = path.join(home, '.claude/projects');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.cpSync(projects, path.join(out, 'projects'), { recursive: true });
console.log(`Claude Code ${version}: ${out} (requests logged in ${log})`);
