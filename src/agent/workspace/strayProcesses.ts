import * as fs from 'fs';

/**
 * What identifies the processes one command started, wherever they went: a variable set in the
 * command's environment (inherited by every descendant, even one that left the process group with
 * setsid) and the shell's output sockets (held by whatever still writes to them, even after `env -i`).
 * Found through Linux's /proc; elsewhere nothing is found.
 */
export interface ProcessMark {
  /** `NAME=value`, exactly as it appears in /proc/<pid>/environ. */
  readonly env: string;
  /** /proc link names of the shell's stdout and stderr (`socket:[inode]`, `pipe:[inode]`). */
  readonly outputs: readonly string[];
  /** The shell's start time in clock ticks since boot: nothing it started began earlier. */
  readonly since: number;
}

const linux = process.platform === 'linux';

/**
 * The mark of a shell just spawned, read from /proc while it cannot have been reaped yet (Node
 * reaps children in its event loop, so call this in the same tick as spawn). A shell that has
 * already exited has no descriptors left to read: then only the environment variable marks what
 * it started.
 */
export function markOf(pid: number | undefined, env: string): ProcessMark {
  if (!linux || pid === undefined) return { env, outputs: [], since: 0 };
  const outputs = [1, 2].map((fd) => readOr(() => fs.readlinkSync(`/proc/${pid}/fd/${fd}`), '')).filter((link) => link !== '');
  return { env, outputs, since: readOr(() => startOf(fs.readFileSync(`/proc/${pid}/stat`, 'latin1')) ?? 0, 0) };
}

/**
 * Live processes (zombies are their parent's to reap and hold nothing) that carry `mark`, other
 * than this process and `except`. Read synchronously: a few hundred small /proc reads take
 * milliseconds, where their round trips through the thread pool take many times that. Only
 * processes started since the shell are looked into; those we may not inspect are passed over.
 */
export function findStrays(mark: ProcessMark, except: number | undefined): number[] {
  if (!linux) return [];
  const found: number[] = [];
  for (const name of readOr(() => fs.readdirSync('/proc'), [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || pid === except) continue;
    const stat = readOr(() => fs.readFileSync(`/proc/${pid}/stat`, 'latin1'), '');
    const start = startOf(stat);
    if (start === undefined || start < mark.since || stateOf(stat) === 'Z') continue;
    if (carries(pid, mark)) found.push(pid);
  }
  return found;
}

function carries(pid: number, mark: ProcessMark): boolean {
  if (
    readOr(() => fs.readFileSync(`/proc/${pid}/environ`, 'latin1'), '')
      .split('\0')
      .includes(mark.env)
  )
    return true;
  if (mark.outputs.length === 0) return false;
  return readOr(() => fs.readdirSync(`/proc/${pid}/fd`), [] as string[]).some((fd) =>
    mark.outputs.includes(readOr(() => fs.readlinkSync(`/proc/${pid}/fd/${fd}`), '')),
  );
}

// The fields after the command name, which is in parentheses and may itself hold ") ".
const fieldsOf = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
const stateOf = (stat: string): string | undefined => fieldsOf(stat)[0];

/** Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot. */
function startOf(stat: string): number | undefined {
  const start = Number(fieldsOf(stat)[19]);
  return stat === '' || !Number.isFinite(start) ? undefined : start;
}

/** /proc entries vanish as processes end, and other users' are unreadable: either reads as `fallback`. */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
