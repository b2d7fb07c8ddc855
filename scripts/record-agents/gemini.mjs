// Records Gemini CLI sessions for test/fixtures/agents/gemini-cli-<version>/ against a scripted model
// (gemini-server.mjs): installs @google/gemini-cli into a temp folder, runs `gemini -p … --yolo` once
// per scenario (a read and an edit, a shell command, a subagent, a compression on resuming) in a
// scratch project with a scratch HOME, then copies its chat logs, unedited.
//   node scripts/record-agents/gemini.mjs [--version 0.61.0] [--out DIR] [--install DIR]
import * as fs from 'fs';
import * as path from 'path';
import { startServer } from './gemini-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders } from './recording.mjs';

const args = recordingArgs();
const files = { 'a.txt': 'hello from a.txt\n', 'b.txt': 'bye from b.txt\n', 'c.txt': 'see you\n' };
const { work, home, project, log } = scratchFolders('gemini', files);
const { version, bin } = installAgent(work, '@google/gemini-cli', args.version, args.install);
const out = outFolder(args.out, `gemini-cli-${version}`);

fs.mkdirSync(path.join(home, '.gemini'));
const settings = {
  telemetry: { enabled: false },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  // So small that a resumed session compresses its history before its next request.
  model: { compressionThreshold: 0.0001 },
};
fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));

const server = await startServer(log, project);
const env = scratchEnv(home, {
  PWD: project,
  GEMINI_API_KEY: 'dummy',
  GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  GEMINI_CLI_NO_RELAUNCH: 'true',
});
/** One non-interactive run. */
const gemini = (...args) => runAgent(bin('gemini'), [...args, '--yolo', '-m', 'gemini-2.5-flash'], { cwd: project, env });
try {
  await gemini('-p', 'Read a.txt and change hello to howdy');
  await gemini('-p', 'Run ls');
  await gemini('-p', 'Ask a subagent what b.txt says');
  await gemini('-p', 'Read the big file c.txt');
  await gemini('--resume', 'latest', '-p', 'Now say it again');
} finally {
  server.close();
}

const tmp = path.join(home, '.gemini', 'tmp');
const chats = fs
  .readdirSync(tmp)
  .map((name) => path.join(tmp, name, 'chats'))
  .filter((dir) => fs.existsSync(dir));
copyRecording(
  out,
  chats.map((dir) => [dir, 'chats']),
);
console.log(`Gemini CLI ${version}: ${path.join(out, 'chats')}; requests in ${log}`);
