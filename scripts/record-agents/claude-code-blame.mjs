// Records a Claude Code session whose edits the blame tests follow, against the scripted model
// server on 127.0.0.1 (claude-code-server.mjs, prompts TAPE-BLAME-1 and TAPE-BLAME-2):
//   node scripts/record-agents/claude-code-blame.mjs [--version X] [--out DIR] [--install DIR]
// installs @anthropic-ai/claude-code@X (latest by default) into a temp folder (or uses the one in
// --install), runs the two turns in a scratch project holding src/calc.js (blame-project.mjs) with a
// scratch HOME, and copies what Claude Code wrote under ~/.claude/projects/ and the project's files
// as the agent left them into DIR (test/fixtures/agents/claude-code-<X>-blame/ by default).
import * as fs from 'fs';
import * as path from 'path';
import { BLAME_PROJECT } from './blame-project.mjs';
import { startServer } from './claude-code-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const args = recordingArgs();
const { work, home, project, log } = scratchFolders('claude-code', BLAME_PROJECT);
const { root, version } = installAgent(work, '@anthropic-ai/claude-code', args.version, args.install);
const claude = path.join(root, 'bin/claude.exe');
const out = outFolder(args.out, `claude-code-${version}-blame`);
const server = await startServer({ log, project: fs.realpathSync(project) });

const env = scratchEnv(home, {
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  ANTHROPIC_API_KEY: 'dummy',
  DISABLE_AUTOUPDATER: '1',
  IS_SANDBOX: '1',
});
// A short system prompt and only the tools the script calls keep the session small (see claude-code.mjs).
const SMALL = ['--system-prompt', 'You are Claude Code, recording a scripted test session.', '--tools', 'Read,Write,Edit'];
async function run(args) {
  const { stdout } = await runAgent(claude, ['--dangerously-skip-permissions', '--output-format', 'json', ...SMALL, ...args], { cwd: project, env });
  const result = JSON.parse(stdout);
  console.log(`-> ${result.session_id}: ${String(result.result).slice(0, 80)}`);
  return result;
}

try {
  const first = await run(['-p', 'TAPE-BLAME-1: add src/new.js and make the division error clearer.']);
  await run(['--resume', first.session_id, '-p', 'TAPE-BLAME-2: round to 4 digits.']);
} finally {
  server.close();
}

copyRecording(out, [
  [path.join(home, '.claude/projects'), 'projects'],
  [project, 'workspace'],
]);
console.log(`Claude Code ${version} (blame): ${out} (requests logged in ${log})`);
