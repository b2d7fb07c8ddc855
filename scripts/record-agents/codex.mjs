// Records Codex CLI sessions against a scripted model server on 127.0.0.1, for the reader's tests:
//   node scripts/record-agents/codex.mjs [--version X] [--out DIR] [--install DIR]
// installs @openai/codex@X into a temp folder, runs the scripted sessions below with a scratch
// CODEX_HOME, and copies the rollouts Codex wrote, unedited, to DIR (by default
// test/fixtures/agents/codex-<X>/). The requests Codex sent are left in the temp folder's
// requests.jsonl for reading a new version's changes.
import * as fs from 'fs';
import * as path from 'path';
import { startServer } from './codex-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

// The prompts, tasks and answers the sessions are scripted on; the tests look for these texts.
const EDIT_PROMPT = 'Read a.txt, fix its typo, then check it.';
const COMPACT_PROMPT = 'Now say it is done.';
const SPAWN_PROMPT = 'Ask a helper to count the lines of a.txt.';
const CHILD_TASK = 'Count the lines of a.txt and answer with the number.';
const SUMMARY = 'Summary: a.txt had a typo (wrld); it was fixed to world and checked.';
const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n-hello wrld\n+hello world\n*** End Patch\n';

const say = (n, text) => ({ type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text }] });
const think = (n, text) => ({ type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text }], content: null, encrypted_content: null });
const fn = (n, name, args, namespace) => ({
  type: 'function_call',
  id: `fc_${n}`,
  call_id: `call_${n}`,
  name,
  ...(namespace ? { namespace } : {}),
  arguments: JSON.stringify(args),
});
const exec = (n, cmd) => fn(n, 'exec_command', { cmd });

/** The model's side of each session: the next answer given what the request holds. */
function reply(body, url, n) {
  const input = JSON.stringify(body.input ?? []);
  const outputs = (body.input ?? []).filter((i) => /_call_output$/.test(i.type ?? '')).length;
  if (url.endsWith('/responses/compact')) return [{ type: 'compaction', encrypted_content: SUMMARY }];
  // Remote compaction: the history ends in a trigger; the summary is opaque to the client.
  if ((body.input ?? []).at(-1)?.type === 'compaction_trigger') return [{ type: 'compaction', id: `cmp_${n}`, encrypted_content: `opaque-${SUMMARY}` }];
  if (input.includes(EDIT_PROMPT)) {
    if (input.includes(COMPACT_PROMPT) && input.lastIndexOf(COMPACT_PROMPT) > input.lastIndexOf('_call_output')) return [say(n, 'It is done.')];
    const steps = [
      () => [think(n, 'Reading the file first.'), exec(n, 'cat a.txt')],
      () => [{ type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: 'apply_patch', input: PATCH }],
      () => [exec(n, 'grep -c world a.txt')],
      () => [say(n, 'Fixed: a.txt now says hello world.')],
    ];
    return steps[Math.min(outputs, steps.length - 1)]();
  }
  if (input.includes(SPAWN_PROMPT)) {
    const steps = [
      () => [fn(n, 'spawn_agent', { task_name: 'counter', message: CHILD_TASK, fork_turns: 'none' }, 'collaboration')],
      () => [fn(n, 'wait_agent', { timeout_ms: 30000 }, 'collaboration')],
      () => [say(n, 'The helper says a.txt has 1 line.')],
    ];
    return steps[Math.min(outputs, steps.length - 1)]();
  }
  if (input.includes(CHILD_TASK)) {
    return outputs === 0 ? [exec(n, 'wc -l < a.txt')] : [say(n, '1')];
  }
  return [say(n, 'I have no script for this request.')];
}

const args = recordingArgs('0.169.1');
const { work, home, project, log } = scratchFolders('codex', { 'a.txt': 'hello wrld\n' });
const { version, bin } = installAgent(work, '@openai/codex', args.version, args.install);
const out = outFolder(args.out, `codex-${version}`);
const codexHome = path.join(home, '.codex');
fs.mkdirSync(codexHome);

const server = await startServer({ reply, log });
const port = server.address().port;
fs.writeFileSync(
  path.join(codexHome, 'config.toml'),
  [
    'model = "gpt-5.5"',
    'model_provider = "openai"',
    `openai_base_url = "http://127.0.0.1:${port}/v1"`,
    '[features]',
    'multi_agent_v2 = true',
    '[model_providers.local]',
    'name = "local"',
    `base_url = "http://127.0.0.1:${port}/v1"`,
    'wire_api = "responses"',
    'env_key = "LOCAL_KEY"',
    '',
  ].join('\n'),
);
const env = scratchEnv(home, { CODEX_HOME: codexHome, LOCAL_KEY: 'dummy-key', OPENAI_API_KEY: 'dummy-key' });
const codex = async (...args) => {
  const { stdout, stderr } = await runAgent(bin('codex'), ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...args], {
    cwd: project,
    env,
    timeout: 120_000,
  });
  return stdout + stderr;
};
const sessionIdOf = (text) => /session id: ([0-9a-f-]{36})/.exec(text)?.[1];

const rollouts = () => fs.readdirSync(path.join(codexHome, 'sessions'), { recursive: true }).map(String);
try {
  await codex(SPAWN_PROMPT);
  // The subagent's rollout is the one whose first line names a parent thread.
  const child = rollouts().find(
    (f) =>
      f.endsWith('.jsonl') &&
      fs
        .readFileSync(path.join(codexHome, 'sessions', f), 'utf8')
        .split('\n')[0]
        .includes('"parent_thread_id"'),
  );
  const edit = sessionIdOf(await codex(EDIT_PROMPT));
  // Codex compresses a rollout idle for a week (by its modification time) to .jsonl.zst when a
  // later run starts: the subagent's rollout is made to look that old. The limit below the usage
  // the server reports makes the resumed turn compact the history first.
  const week = (Date.now() - 8 * 24 * 3600 * 1000) / 1000;
  fs.utimesSync(path.join(codexHome, 'sessions', child), week, week);
  await codex('--enable', 'local_thread_store_compression', '-c', 'model_auto_compact_token_limit=1000', 'resume', edit, COMPACT_PROMPT);
} finally {
  server.close();
}
copyRecording(out, [[path.join(codexHome, 'sessions'), 'sessions']]);
console.log(`Codex ${version}: recorded into ${out}; requests in ${log}`);
