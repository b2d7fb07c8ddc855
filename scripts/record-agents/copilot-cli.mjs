#!/usr/bin/env node
// Records Copilot CLI sessions for test/fixtures/agents: installs @github/copilot into a temp folder,
// points it (BYOK) at the scripted model server beside this file, runs the scripted sessions with a
// scratch HOME and copies the session folders it wrote, unedited.
//   node scripts/record-agents/copilot-cli.mjs [--version X] [--out DIR] [--install DIR]
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from './copilot-cli-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const args = recordingArgs();
const { work, home, project, log } = scratchFolders('copilot-cli', { 'a.txt': 'helo world\n' });
const { version, bin } = installAgent(work, '@github/copilot', args.version, args.install);
const out = outFolder(args.out, `copilot-cli-${version}`);

const server = await startServer({ cwd: project, log });
const env = scratchEnv(home, {
  COPILOT_OFFLINE: 'true',
  COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
  COPILOT_PROVIDER_API_KEY: 'dummy',
  COPILOT_MODEL: 'gpt-4.1',
});
const copilot = (...args) => runAgent(bin('copilot'), [...args, '--allow-all-tools'], { cwd: project, env });
const state = path.join(home, '.copilot/session-state');
const sessions = () => (fs.existsSync(state) ? fs.readdirSync(state).filter((name) => !name.startsWith('.')) : []);

try {
  // A read, an edit, a shell command and a subagent in one session, then its own /compact.
  await copilot('-p', 'Fix the typo in a.txt, show it, and have a subagent review it.');
  const [id, ...others] = sessions();
  if (!id || others.length > 0) throw new Error(`expected one session, found: ${sessions().join(', ')}`);
  await copilot(`--resume=${id}`, '-p', '/compact');

  // session.db is the agent's scratch database for its sql tool (192 KB empty), not its history.
  const history = (from) => !/(^|\/)(session\.db|[^/]*\.lock)$/.test(from);
  copyRecording(
    out,
    sessions().map((session) => [path.join(state, session), path.join('session-state', session), history]),
  );
  console.log(`Copilot CLI ${version}: recorded into ${out}; requests in ${log}`);
} finally {
  server.close();
}
