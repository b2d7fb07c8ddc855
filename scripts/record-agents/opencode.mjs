// Records opencode sessions for test/fixtures/agents/opencode-<version>/ against a scripted model
// (opencode-server.mjs): installs opencode-ai into a temp folder, runs `opencode run` once per
// scenario (a read and an edit, a shell command, a subagent, an automatic compaction) in a scratch
// project with a scratch HOME, then copies opencode's database, unedited.
//   node scripts/record-agents/opencode.mjs [--version 1.18.33] [--out DIR] [--install DIR]
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { startServer } from './opencode-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const args = recordingArgs();
const files = { 'a.txt': 'hello from a.txt\n', 'b.txt': 'bye from b.txt\n', 'c.txt': 'see you\n' };
const { work, home, project, log } = scratchFolders('opencode', files);
const { version, bin } = installAgent(work, 'opencode-ai', args.version, args.install);
const out = outFolder(args.out, `opencode-${version}`);

const server = await startServer(log, project);
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
fs.writeFileSync(path.join(project, 'opencode.json'), JSON.stringify(config, null, 2));

const env = scratchEnv(home, {
  // opencode takes its folder from PWD, not from its working directory.
  PWD: project,
  XDG_DATA_HOME: path.join(home, '.local', 'share'),
  XDG_CONFIG_HOME: path.join(home, '.config'),
  XDG_STATE_HOME: path.join(home, '.local', 'state'),
  XDG_CACHE_HOME: path.join(home, '.cache'),
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
});
const prompts = ['Read a.txt and change hello to howdy', 'Run ls', 'Ask a subagent what b.txt says', 'Read the big file c.txt'];
try {
  for (const prompt of prompts) await runAgent(bin('opencode'), ['run', prompt], { cwd: project, env });
} finally {
  server.close();
}
// opencode's own checkpoint, so that the copy is its database without a megabytes-long log.
execFileSync(bin('opencode'), ['db', 'PRAGMA wal_checkpoint(TRUNCATE)'], { cwd: project, env });

const data = path.join(home, '.local', 'share', 'opencode');
// The database and its log, if any; the shared-memory index is rebuilt from the log by whoever opens the database next.
const database = (from) => from === data || (/^opencode.*\.db(-wal)?$/.test(path.basename(from)) && fs.statSync(from).size > 0);
copyRecording(out, [[data, '', database]]);
console.log(`opencode ${version}: ${fs.readdirSync(out).join(', ')} in ${out}; requests in ${log}`);
