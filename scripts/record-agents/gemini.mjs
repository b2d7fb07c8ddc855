// Records Gemini CLI sessions for test/fixtures/agents/gemini-cli-<version>/ against a scripted model
// (gemini-server.mjs): installs @google/gemini-cli into a temp folder, runs `gemini -p … --yolo` once
// per scenario (a read and an edit, a shell command, a subagent, a compression on resuming) in a
// scratch project with a scratch HOME, then copies its chat logs, unedited. With --telemetry, the same
// runs send their OpenTelemetry (traces on, prompts logged, OTLP/HTTP) to a receiver on 127.0.0.1,
// and what they sent to /v1/traces is kept instead, as a collector's file exporter writes it
// (gemini-cli-<version>-otlp/traces.jsonl).
//   node scripts/record-agents/gemini.mjs [--version 0.61.0] [--out DIR] [--install DIR] [--telemetry]
import * as fs from 'fs';
import * as path from 'path';
import { startServer } from './gemini-server.mjs';
import { copyRecording, installAgent, outFolder, recordingArgs, runAgent, scratchEnv, scratchFolders, startOtlpReceiver } from './recording.mjs';

const args = recordingArgs('latest', { telemetry: { type: 'boolean', default: false } });
const files = { 'a.txt': 'hello from a.txt\n', 'b.txt': 'bye from b.txt\n', 'c.txt': 'see you\n' };
const { work, home, project, log } = scratchFolders('gemini', files);
const { version, bin } = installAgent(work, '@google/gemini-cli', args.version, args.install);
const out = outFolder(args.out, `gemini-cli-${version}${args.telemetry ? '-otlp' : ''}`);

const traces = path.join(work, 'otlp', 'traces.jsonl');
fs.mkdirSync(path.dirname(traces));
const otlp = args.telemetry ? await startOtlpReceiver(traces) : null;
fs.mkdirSync(path.join(home, '.gemini'));
const settings = {
  telemetry:
    otlp === null ? { enabled: false } : { enabled: true, traces: true, logPrompts: true, target: 'local', otlpEndpoint: otlp.url, otlpProtocol: 'http' },
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
  otlp?.server.close();
}

if (otlp !== null) {
  copyRecording(out, [[path.dirname(traces), '.']]);
  console.log(`Gemini CLI ${version}: ${path.join(out, 'traces.jsonl')}; OTLP requests by path: ${JSON.stringify(otlp.received)}`);
} else {
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
}
