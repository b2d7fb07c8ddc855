// Records Claude Code sessions against a scripted model server on 127.0.0.1, for the ingest tests:
//   node scripts/record-agents/claude-code.mjs [--version X] [--out DIR] [--install DIR]
// installs @anthropic-ai/claude-code@X (latest by default) into a temp folder (or uses the one in
// --install), runs the scripted sessions in a scratch project with a scratch HOME, and copies what
// Claude Code wrote under ~/.claude/projects/ into DIR (test/fixtures/agents/claude-code-<X>/ by default).
import * as fs from 'fs';
import * as path from 'path';
import { startServer } from './claude-code-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const args = recordingArgs();
const { work, home, project, log } = scratchFolders('claude-code', { 'a.txt': 'hello world\n', 'b.txt': 'bravo\n' });
const { root, version } = installAgent(work, '@anthropic-ai/claude-code', args.version, args.install);
// The package's bin is the native binary for this platform (its postinstall only copies it there when npm skipped that).
const claude = path.join(root, 'bin/claude.exe');
const out = outFolder(args.out, `claude-code-${version}`);
const server = await startServer({ log, project: fs.realpathSync(project) });

const env = scratchEnv(home, {
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  ANTHROPIC_API_KEY: 'dummy',
  DISABLE_AUTOUPDATER: '1',
  // Claude Code refuses --dangerously-skip-permissions as root unless told it runs in a sandbox.
  IS_SANDBOX: '1',
  // A small limit, so that a short command's output is already kept apart in tool-results/.
  BASH_MAX_OUTPUT_LENGTH: '1000',
});
/**
 * A short system prompt and only the tools the script calls: Claude Code records both (the
 * prompt snapshot and the request shape) in every session, at 40 KB each with its defaults.
 */
const SMALL = ['--system-prompt', 'You are Claude Code, recording a scripted test session.', '--tools', 'Read,Edit,Bash,Agent'];
/** One `claude -p` run; its JSON result, which names the session. */
async function run(args) {
  const { stdout } = await runAgent(claude, ['--dangerously-skip-permissions', '--output-format', 'json', ...SMALL, ...args], { cwd: project, env });
  const result = JSON.parse(stdout);
  console.log(`-> ${result.session_id}: ${String(result.result).slice(0, 80)}`);
  return result;
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

copyRecording(out, [[path.join(home, '.claude/projects'), 'projects']]);
console.log(`Claude Code ${version}: ${out} (requests logged in ${log})`);
