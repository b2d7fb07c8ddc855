// Records a Codex CLI session whose patches the blame tests follow, against the scripted Responses
// API on 127.0.0.1 (codex-server.mjs, answered by `reply` below):
//   node scripts/record-agents/codex-blame.mjs [--version X] [--out DIR] [--install DIR]
// installs @openai/codex@X into a temp folder (or uses the one in --install), runs two turns in a
// scratch project holding src/calc.js (blame-project.mjs) with a scratch CODEX_HOME, and copies the
// rollout and the project's files as Codex left them, unedited, to DIR (by default
// test/fixtures/agents/codex-<X>-blame/).
import * as fs from 'fs';
import * as path from 'path';
import { BLAME_PROJECT } from './blame-project.mjs';
import { startServer } from './codex-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const FIRST_PROMPT = 'TAPE-BLAME-1: add src/stats.js and simplify add and average.';
const SECOND_PROMPT = 'TAPE-BLAME-2: make mean of nothing 0.';
// One patch adding a file and changing two places of another (hunks with context lines), then one hunk.
const FIRST_PATCH = [
  '*** Begin Patch',
  '*** Add File: src/stats.js',
  '+// Statistics built on calc.js.',
  "+const { add, divide } = require('./calc');",
  '+',
  '+function mean(values) {',
  '+  return divide(values.reduce(add, 0), values.length);',
  '+}',
  '+',
  '+module.exports = { mean };',
  '*** Update File: src/calc.js',
  '@@',
  ' function add(a, b) {',
  '-  const sum = a + b;',
  '-  return sum;',
  '+  return a + b;',
  ' }',
  '@@ function average(values) {',
  '-  let total = 0;',
  '-  for (const v of values) total = add(total, v);',
  '-  return values.length === 0 ? 0 : total / values.length;',
  '+  if (values.length === 0) return 0;',
  '+  return values.reduce(add, 0) / values.length;',
  ' }',
  '*** End Patch',
  '',
].join('\n');
const SECOND_PATCH = [
  '*** Begin Patch',
  '*** Update File: src/stats.js',
  '@@',
  ' function mean(values) {',
  '+  if (values.length === 0) return 0;',
  '   return divide(values.reduce(add, 0), values.length);',
  '*** End Patch',
  '',
].join('\n');

const say = (n, text) => ({ type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text }] });
const patch = (n, input) => ({ type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: 'apply_patch', input });

/** The model's side: the turn is the last prompt the request holds, the step how many call outputs follow it. */
function reply(body, url, n) {
  const items = body.input ?? [];
  const prompted = items.findLastIndex((i) => [FIRST_PROMPT, SECOND_PROMPT].some((p) => JSON.stringify(i).includes(p)));
  if (prompted < 0) return [say(n, 'I have no script for this request.')];
  const step = items.slice(prompted).filter((i) => /_call_output$/.test(i.type ?? '')).length;
  const steps = JSON.stringify(items[prompted]).includes(SECOND_PROMPT)
    ? [() => patch(n, SECOND_PATCH), () => say(n, 'mean([]) is 0 now.')]
    : [() => patch(n, FIRST_PATCH), () => say(n, 'Added src/stats.js; add and average are simpler.')];
  return [steps[Math.min(step, steps.length - 1)]()];
}

const args = recordingArgs('0.169.1');
const { work, home, project, log } = scratchFolders('codex', BLAME_PROJECT);
const { version, bin } = installAgent(work, '@openai/codex', args.version, args.install);
const out = outFolder(args.out, `codex-${version}-blame`);
const codexHome = path.join(home, '.codex');
fs.mkdirSync(codexHome);

const server = await startServer({ reply, log });
const port = server.address().port;
// The built-in provider at the scripted server, with the model whose apply_patch is the freeform tool (as codex.mjs).
fs.writeFileSync(
  path.join(codexHome, 'config.toml'),
  ['model = "gpt-5.5"', 'model_provider = "openai"', `openai_base_url = "http://127.0.0.1:${port}/v1"`, ''].join('\n'),
);
const env = scratchEnv(home, { CODEX_HOME: codexHome, OPENAI_API_KEY: 'dummy-key' });
const codex = async (...args) => {
  const { stdout, stderr } = await runAgent(bin('codex'), ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...args], {
    cwd: project,
    env,
    timeout: 120_000,
  });
  return stdout + stderr;
};

try {
  const session = /session id: ([0-9a-f-]{36})/.exec(await codex(FIRST_PROMPT))?.[1];
  if (!session) throw new Error('Codex named no session');
  await codex('resume', session, SECOND_PROMPT);
} finally {
  server.close();
}
copyRecording(out, [
  [path.join(codexHome, 'sessions'), 'sessions'],
  [project, 'workspace'],
]);
console.log(`Codex ${version} (blame): recorded into ${out}; requests in ${log}`);
