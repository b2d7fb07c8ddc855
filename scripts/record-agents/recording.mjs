// The plumbing every agent's recording shares (scripts/record-agents/<agent>.mjs and the scripted
// model server beside it): the command line, a scratch folder, the agent installed from npm, its
// runs, the model server's request log and replies, the copy of what the agent wrote. What is an
// agent's own (its API's replies, its sessions, its settings) stays in its two scripts.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** One command line for every agent, `[--version X] [--out DIR] [--install DIR]` and an agent's own `extra` options: --install reuses an installed copy to record again quickly. */
export function recordingArgs(defaultVersion = 'latest', extra = {}) {
  const options = { version: { type: 'string', default: defaultVersion }, out: { type: 'string' }, install: { type: 'string' }, ...extra };
  return parseArgs({ options }).values;
}

/** The fixtures folder the ingest tests read is where a recording goes unless --out says otherwise, wherever the script runs from. */
export function outFolder(out, name) {
  return path.resolve(out ?? path.join(import.meta.dirname, '../../test/fixtures/agents', name));
}

/** A scratch HOME and project (with `files`, named by their paths in it) in a temp folder, so the agent touches nothing of the person's; kept after for its request log. */
export function scratchFolders(agent, files = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `rec-${agent}-`));
  const home = path.join(work, 'home');
  const project = path.join(work, 'proj');
  fs.mkdirSync(home);
  fs.mkdirSync(project);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
    fs.writeFileSync(path.join(project, name), text);
  }
  return { work, home, project, log: path.join(work, 'requests.jsonl') };
}

/** The agent as npm ships it, installed apart (under `work`, or the copy in `install`), so its version is the one asked for. */
export function installAgent(work, pkg, version, install) {
  const dir = install ?? path.join(work, 'install');
  if (!install) {
    fs.mkdirSync(dir);
    execFileSync('npm', ['init', '-y'], { cwd: dir, stdio: 'ignore' });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', `${pkg}@${version}`], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const root = path.join(dir, 'node_modules', pkg);
  const installed = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  return { root, version: installed, bin: (name) => path.join(dir, 'node_modules/.bin', name) };
}

/** Only the scratch HOME and PATH, so no setting or key of the person's reaches the agent. */
export function scratchEnv(home, vars) {
  return { PATH: process.env.PATH, HOME: home, TERM: 'dumb', ...vars };
}

/** One run, asynchronous (the model server answering it runs in this process), bounded in time, without stdin (read as more prompt). */
export function runAgent(bin, args, { cwd, env, timeout = 180_000 }) {
  const command = `${path.basename(bin)} ${args.join(' ')}`;
  console.log(command);
  const child = spawn(bin, args, { cwd, env, timeout, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`${command} ended with ${signal ?? code}:\n${stderr}${stdout}`)),
    );
  });
}

/** A model server on 127.0.0.1 logging each request (a JSON line in `log`) for reading what a new version sends; `answer` replies. */
export function startModelServer(log, answer) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        // Logged as it came; the script answers it like any other.
        body = { unparsed: raw };
      }
      fs.appendFileSync(log, JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }) + '\n');
      answer(req, res, body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A JSON reply: what every scripted API answers when it does not stream. */
export function replyJson(res, value, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** A Server-Sent Events reply, how every scripted API streams; `send(data, event?)` writes one event. */
export function eventStream(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (data, event) => res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** `out` replaced whole by unedited copies of what the agent wrote (`[from, to, filter?]`), so no file of an earlier recording stays but its README. */
export function copyRecording(out, copies) {
  // The fixture's README says how it was recorded: written by a person, so kept across a re-record.
  const readme = path.join(out, 'README.md');
  const kept = fs.existsSync(readme) ? fs.readFileSync(readme) : null;
  fs.rmSync(out, { recursive: true, force: true });
  for (const [from, to, filter] of copies) fs.cpSync(from, path.join(out, to), { recursive: true, filter });
  if (kept !== null) fs.writeFileSync(readme, kept);
}

/**
 * An OTLP/HTTP receiver on 127.0.0.1 for an agent's telemetry: each `/v1/traces` request is one line
 * of `file`, as a collector's file exporter writes it (`{"resourceSpans":[...]}`); logs, metrics and
 * anything else are answered and counted by path (`received`), so a script can say what else came.
 * Only OTLP/JSON is kept: a protobuf body is counted under `<path> (protobuf, not kept)`.
 */
export function startOtlpReceiver(file) {
  const received = {};
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      const url = req.url.split('?')[0];
      const at = json ? url : `${url} (${req.headers['content-type']}, not kept)`;
      received[at] = (received[at] ?? 0) + 1;
      if (json && url === '/v1/traces') fs.appendFileSync(file, JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))) + '\n');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, received, url: `http://127.0.0.1:${server.address().port}` })));
}
