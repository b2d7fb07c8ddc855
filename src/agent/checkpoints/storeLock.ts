import { rmSync, writeFileSync, promises as fs } from 'fs';
import * as path from 'path';
import { promises as timers } from 'timers';
import { TapeLockedError } from '../../store/errors';
import { PRIVATE_FILE_MODE } from '../../store/fsutil';
import { acquireLock, lockHolder, lockPathOf, lockText } from '../../store/lock';
import { errorMessage } from '../../tape/errorMessage';
import { GitError, type GitTracker } from './shadowGit';

/** The store's own lock is `agent-tape.lock`; each git run under it is recorded as `agent-tape-git-<pid>.lock`. */
const OWN = 'agent-tape';
const GIT_RECORD = `${OWN}-git-`;
const GIT_RECORD_NAME = new RegExp(`^${GIT_RECORD}(\\d+)\\.lock$`);
const POLL_MS = 100;

export interface StoreLockOptions {
  /** How long a store in use by another live process (or a git it left running) is waited for. */
  waitMs: number;
  signal?: AbortSignal;
}

/** The end of the last locked run per store directory in this process: the next one starts after it. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` holding the store: first every earlier run of this process on the same directory
 * (sessions of one workspace, and workspaces of one tape, share a store), then every other
 * process's (the CLI and the extension may share one): `agent-tape.lock`, the tape's lock (pid,
 * host and start), taken over when its process is gone, waited for up to `waitMs` while it lives.
 *
 * Holding it, no git of ours runs on the store except those `fn` starts, so a git lock file there
 * (`index-<key>.lock`, a ref's, `packed-refs.lock`, `shallow.lock`…) was left by a git that died:
 * killed at its deadline, or with its process (SIGKILL, a crash), which git cannot clean up after.
 * Without this every later checkpoint and restore failed on it. Each git `fn` starts is recorded
 * (its pid, through the tracker) until it ends, because a git outlives a killed parent: a lock
 * whose git still runs is waited for, never removed.
 */
export function withStoreLock<T>(gitDir: string, options: StoreLockOptions, fn: (tracker: GitTracker) => Promise<T>): Promise<T> {
  const key = path.resolve(gitDir);
  const run = (queues.get(key) ?? Promise.resolve()).then(() => locked(key, options, fn));
  const settled = run.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}

async function locked<T>(gitDir: string, options: StoreLockOptions, fn: (tracker: GitTracker) => Promise<T>): Promise<T> {
  const release = await takeStore(gitDir, options);
  try {
    await removeStaleLocks(gitDir, options);
    return await fn(trackerOf(gitDir));
  } finally {
    release();
  }
}

async function takeStore(gitDir: string, options: StoreLockOptions): Promise<() => void> {
  const until = Date.now() + options.waitMs;
  for (;;) {
    try {
      return acquireLock(path.join(gitDir, OWN));
    } catch (error) {
      if (!(error instanceof TapeLockedError)) throw error;
      if (Date.now() >= until) {
        const holder = `${error.holderPid > 0 ? `pid ${error.holderPid}` : 'a process starting'}${error.elsewhere ? ` on ${error.elsewhere.host}` : ''}`;
        throw new GitError(
          `the checkpoint store ${gitDir} is in use by another process (${holder}) for more than ${options.waitMs} ms: its lock is ${lockPathOf(path.join(gitDir, OWN))}${heldLocks((await leftovers(gitDir)).locks)}`,
        );
      }
    }
    await pause(options.signal);
  }
}

/**
 * Removes the git lock files a dead git left, and its temporary object files (a half-written pack
 * of a killed first checkpoint can be as large as what it took in), once no git recorded as ours
 * still runs (see withStoreLock).
 */
async function removeStaleLocks(gitDir: string, options: StoreLockOptions): Promise<void> {
  const until = Date.now() + options.waitMs;
  for (;;) {
    const { locks, temporary, gits } = await leftovers(gitDir);
    const running = gits.filter((pid) => lockHolder(recordBase(gitDir, pid)) !== null);
    for (const pid of gits) if (!running.includes(pid)) await fs.rm(lockPathOf(recordBase(gitDir, pid)), { force: true });
    if (running.length === 0) {
      for (const file of [...locks, ...temporary])
        await fs.rm(file, { force: true }).catch((error: unknown) => {
          throw new GitError(`${file}, left by a git that died, could not be removed: ${errorMessage(error)}`);
        });
      return;
    }
    // A running git's temporary files are its own; only its locks stand in the way.
    if (locks.length === 0) return;
    if (Date.now() >= until)
      throw new GitError(
        `git (pid ${running.join(', ')}), started on the checkpoint store ${gitDir} by a process that is gone, still runs after ${options.waitMs} ms${heldLocks(locks)}`,
      );
    await pause(options.signal);
  }
}

/**
 * The git lock files in the store (top level, `refs/`, `objects/info/`), git's temporary object
 * files (`objects/tmp_obj_*`, `objects/pack/tmp_*` and repack's `.tmp-*`) and the pids of the gits
 * recorded there.
 */
async function leftovers(gitDir: string): Promise<{ locks: string[]; temporary: string[]; gits: number[] }> {
  const locks: string[] = [];
  const temporary: string[] = [];
  const gits: number[] = [];
  for (const entry of await fs.readdir(gitDir, { withFileTypes: true })) {
    if (entry.isDirectory() || !entry.name.endsWith('.lock')) continue;
    const recorded = GIT_RECORD_NAME.exec(entry.name);
    if (recorded !== null) gits.push(Number(recorded[1]));
    else if (!entry.name.startsWith(OWN)) locks.push(path.join(gitDir, entry.name));
  }
  const walk = async (dir: string, deep: boolean): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (deep) await walk(at, deep);
      } else if (entry.name.endsWith('.lock')) locks.push(at);
    }
  };
  await walk(path.join(gitDir, 'refs'), true);
  await walk(path.join(gitDir, 'objects', 'info'), false);
  for (const [dir, made] of [
    ['objects', /^tmp_obj_/],
    [path.join('objects', 'pack'), /^(tmp_|\.tmp-)/],
  ] as const)
    for (const entry of await fs.readdir(path.join(gitDir, dir), { withFileTypes: true }).catch(() => []))
      if (!entry.isDirectory() && made.test(entry.name)) temporary.push(path.join(gitDir, dir, entry.name));
  return { locks, temporary, gits };
}

const recordBase = (gitDir: string, pid: number): string => path.join(gitDir, `${GIT_RECORD}${pid}`);

function trackerOf(gitDir: string): GitTracker {
  return {
    // Synchronously after the spawn: only this process dying within that instant leaves a git unrecorded.
    started: (pid) => writeFileSync(lockPathOf(recordBase(gitDir, pid)), lockText(pid), { mode: PRIVATE_FILE_MODE }),
    ended: (pid) => {
      try {
        rmSync(lockPathOf(recordBase(gitDir, pid)), { force: true });
      } catch {
        // Left behind, it names a dead pid: the next holder removes it.
      }
    },
  };
}

const heldLocks = (locks: readonly string[]): string => (locks.length > 0 ? `; git's lock files there: ${locks.join(', ')}` : '');

async function pause(signal: AbortSignal | undefined): Promise<void> {
  await timers.setTimeout(POLL_MS, undefined, { signal }).catch(() => {
    throw new GitError('cancelled while waiting for the checkpoint store');
  });
}
