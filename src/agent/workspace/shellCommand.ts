import { spawn } from 'child_process';
import { randomUUID } from 'crypto';
import { findStrays, markOf } from './strayProcesses';
import type { CommandOptions, CommandResult } from './workspacePort';

/** Set in every command's environment, so the processes it starts can be found wherever they go. */
const RUN_ID_VARIABLE = 'AGENT_TAPE_RUN_ID';

/** How long output already written may still arrive after the command ended and its processes were killed. */
const OUTPUT_GRACE_MS = 300;
/** Sweeps for processes the command left behind, so one forked during a sweep is caught by the next. */
const SWEEPS = 3;
const SWEEP_PAUSE_MS = 50;

export interface ShellPlace {
  readonly cwd: string;
  /** The whole environment of the command (see commandEnv). */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Runs `command` through the platform shell, keeping the first `maxOutputBytes` of stdout and
 * stderr together. The command ends when the shell exits, at the timeout or on abort, whatever its
 * children do: then its process group is killed, and on Linux so is every process that carries its
 * run id or holds its output (one that left the group with setsid, say). Output still in the
 * pipes is read for a short grace; a pipe still held after that is closed without waiting for it.
 */
export function runShellCommand(command: string, place: ShellPlace, options: CommandOptions): Promise<CommandResult> {
  const windows = process.platform === 'win32';
  const runId = randomUUID();
  return new Promise((resolve, reject) => {
    // detached makes the shell a process-group leader on POSIX, so -pid reaches its descendants.
    const child = spawn(command, {
      cwd: place.cwd,
      env: { ...place.env, [RUN_ID_VARIABLE]: runId },
      shell: true,
      detached: !windows,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const mark = markOf(child.pid, `${RUN_ID_VARIABLE}=${runId}`);
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let closed = false;
    let ending = false;
    let settled = false;
    let wake = () => {};

    const collect = (chunk: Buffer) => {
      const room = options.maxOutputBytes - kept;
      if (chunk.length > room) truncated = true;
      if (room <= 0) return;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    // The group outlives its leader, so it is killed whether or not the shell is still running.
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        if (windows) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { windowsHide: true });
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };

    const sweep = async (): Promise<number> => {
      const killed = new Set<number>();
      for (let round = 0; round < SWEEPS; round++) {
        // The shell itself is excluded: at a timeout it is still alive and killed with its group.
        const strays = findStrays(mark, child.pid).filter((pid) => !killed.has(pid));
        killGroup();
        if (strays.length === 0) break;
        for (const pid of strays) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone meanwhile.
          }
          killed.add(pid);
        }
        await sleep(SWEEP_PAUSE_MS);
      }
      return killed.size;
    };

    /** Until the shell has exited and its output is closed, or `until` (a Date.now() value). */
    const settle = async (until: number) => {
      while (!(exit && closed) && Date.now() < until) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, until - Date.now());
        });
      }
    };

    const end = async () => {
      if (ending) return;
      ending = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const graceOver = (): Promise<void> => settle(Date.now() + OUTPUT_GRACE_MS);
      let leftovers = await sweep();
      await graceOver();
      // A process caught in the middle of an exec shows no environment or descriptors for that
      // moment; the one still holding the output is looked for again once it has settled.
      if (!closed) {
        const more = await sweep();
        leftovers += more;
        if (more > 0) await graceOver();
      }
      const outputDetached = !closed;
      if (outputDetached) {
        child.stdout.destroy();
        child.stderr.destroy();
      }
      settled = true;
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit ? exit.signal : 'SIGKILL',
        timedOut,
        aborted,
        output: Buffer.concat(chunks).toString('utf8'),
        truncated,
        killedLeftovers: leftovers,
        outputDetached,
      });
    };

    const timer = setTimeout(() => {
      timedOut = true;
      void end();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      void end();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (!settled && !ending) {
        settled = true;
        reject(error);
      }
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      wake();
      void end();
    });
    child.on('close', () => {
      closed = true;
      wake();
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
