import { spawn } from 'child_process';
import type { CommandOptions, CommandResult } from './workspacePort';

/**
 * Runs `command` through the platform shell in `cwd`, keeping the first `maxOutputBytes` of stdout
 * and stderr together. At the timeout or on abort the whole process group is killed, so a shell's
 * children (a test runner, a server) do not outlive it.
 */
export function runShellCommand(command: string, cwd: string, options: CommandOptions): Promise<CommandResult> {
  const windows = process.platform === 'win32';
  return new Promise((resolve, reject) => {
    // detached makes the child a process-group leader on POSIX, so -pid reaches its descendants.
    const child = spawn(command, { cwd, shell: true, detached: !windows, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;

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

    let closed = false;
    // The shell may have exited already while a background child still holds the pipes open; the
    // group outlives its leader, so it is killed whether or not the shell is still running.
    const killGroup = () => {
      if (child.pid === undefined || closed) return;
      try {
        if (windows) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { windowsHide: true });
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      closed = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      finish();
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      finish();
      resolve({ exitCode, signal, timedOut, aborted, output: Buffer.concat(chunks).toString('utf8'), truncated });
    });
  });
}
