import { spawn, type ChildProcess } from 'child_process';
import { CLI } from '../unit/cli/build';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** What the process has written to stdout so far. */
  out(): string;
  done: Promise<CliResult>;
}

/**
 * Starts the bundled CLI as a child process without blocking this one: a test's fake model server
 * runs in this process and must go on answering while the CLI waits for it (spawnSync would not).
 */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd?: string): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (err += t));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
  return { child, out: () => out, done };
}

export const runCli = (args: readonly string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> => startCli(args, env, cwd).done;
