import * as fs from 'fs';
import * as os from 'os';
import { TapeLockedError } from './errors';
import { PRIVATE_FILE_MODE } from './fsutil';
import { readRegularFileIfExistsSync, readRegularFileSync } from './safeRead';

const EMPTY_LOCK_GRACE_MS = 10_000;
/** A lock is a pid and two short lines; anything larger is not one of ours. */
const LOCK_MAX_BYTES = 4096;
const LOCK_WHAT = 'a tape lock';

export const lockPathOf = (file: string): string => `${file}.lock`;

/**
 * What a lock says about its writer. The pid comes first, on a line of its own, as in the locks of
 * earlier versions (which hold nothing else), so each version reads the other's. The host and the
 * process's start tell a live writer from an unrelated process that got the same pid later (after
 * a crash, a reboot, a container restart), which would otherwise block writers for ever.
 */
interface LockRecord {
  pid: number;
  host?: string;
  /** The writer's boot and start time (processStart); absent where the system cannot tell. */
  start?: string;
}

/** A lock naming the process `pid` (this one by default): what isHeld reads back. */
export function lockText(pid = process.pid): string {
  const start = processStart(pid);
  return `${pid}\nhost=${os.hostname()}\n${start === null ? '' : `start=${start}\n`}`;
}

function parseLock(content: string): LockRecord {
  const [first, ...rest] = content.split('\n');
  const fields = new Map(rest.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const));
  return { pid: Number.parseInt(first, 10), host: fields.get('host'), start: fields.get('start') };
}

let bootId: string | null | undefined;

function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * When a process started, as `<boot id>:<start time>`: field 22 of /proc/<pid>/stat (clock ticks
 * since boot) on the boot named by /proc/sys/kernel/random/boot_id. Null where there is no /proc
 * (macOS, Windows: only the pid is checked there) or the process is gone. Both are the kernel's
 * own files, not something another user wrote, so they are read directly.
 */
function processStart(pid: number): string | null {
  const boot = currentBootId();
  if (boot === null) return null;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Field 2 is the command in parentheses, which may itself hold spaces and parentheses.
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
  return ticks ? `${boot}:${ticks}` : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else; it still holds the lock.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the writer a lock names may still be running. A lock from another host is held: its
 * processes cannot be checked from here. On this host the pid must be alive and, when the lock
 * says when its writer started, be that same process.
 */
function isHeld(lock: LockRecord): boolean {
  if (lock.host !== undefined && lock.host !== os.hostname()) return true;
  if (!isAlive(lock.pid)) return false;
  if (lock.start === undefined) return true;
  const now = processStart(lock.pid);
  return now === null || now === lock.start;
}

const lockedError = (file: string, lock: LockRecord): TapeLockedError =>
  new TapeLockedError(file, lock.pid, lock.host !== undefined && lock.host !== os.hostname() ? { host: lock.host, lockFile: lockPathOf(file) } : undefined);

/**
 * Creates the lock already holding our pid, so a writer killed while taking it never leaves an
 * empty lock (which others must treat as held for a while): the pid goes into a file of our own,
 * which is then hard-linked into place, failing with EEXIST as O_EXCL does. Where hard links are
 * not supported, the lock is created with O_EXCL and written after.
 */
function createWithPid(lockFile: string): void {
  const own = `${lockFile}.${process.pid}-${Date.now().toString(36)}`;
  const text = lockText();
  fs.writeFileSync(own, text, { mode: PRIVATE_FILE_MODE });
  try {
    fs.linkSync(own, lockFile);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
  } finally {
    fs.rmSync(own, { force: true });
  }
  const fd = fs.openSync(lockFile, 'wx', PRIVATE_FILE_MODE);
  fs.writeSync(fd, text);
  fs.closeSync(fd);
}

/**
 * One writer per tape (SPEC 2.9): `<file>.lock`, created exclusively, holding the writer's pid,
 * host and start (see LockRecord). A lock whose writer is gone (a crashed writer, its pid dead or
 * now another process's) is taken over; one from another host never is. The same process opening
 * the file twice is refused too, because its own pid is alive. Returns the release function.
 */
export function acquireLock(file: string): () => void {
  const lockFile = lockPathOf(file);
  for (let attempt = 0; ; attempt++) {
    try {
      createWithPid(lockFile);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(lockFile, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw e;
    }
    const content = readLock(lockFile);
    if (content === null) continue; // released between our open and read: try again
    const lock = parseLock(content);
    if (!Number.isInteger(lock.pid) || lock.pid <= 0) {
      // No pid yet: a writer between create and write holds it, unless that writer died there long ago.
      if (Date.now() - fs.statSync(lockFile).mtimeMs < EMPTY_LOCK_GRACE_MS) throw new TapeLockedError(file, 0);
    } else if (isHeld(lock)) {
      throw lockedError(file, lock);
    }
    removeStale(file, lockFile, content);
  }
}

/** The lock's text, null when there is none; a lock that is not a small regular file is refused. */
const readLock = (lockFile: string): string | null => readRegularFileIfExistsSync(lockFile, LOCK_MAX_BYTES, LOCK_WHAT)?.toString('utf8') ?? null;

/**
 * Removes a dead writer's lock, and only that lock. A plain delete could remove the fresh lock of
 * another process that took the stale one over since we read it, and both would then write. The
 * rename is atomic, so we look at exactly what we moved: if it is not the stale lock we read, it
 * goes back and we give way. (Putting it back races a third opener; that needs three processes
 * opening the same crashed tape at one instant.)
 */
function removeStale(file: string, lockFile: string, stale: string): void {
  const moved = `${lockFile}.stale-${process.pid}-${Date.now().toString(36)}`;
  try {
    fs.renameSync(lockFile, moved);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it: try again
    throw e;
  }
  let content: string;
  try {
    content = readRegularFileSync(moved, LOCK_MAX_BYTES, LOCK_WHAT).toString('utf8');
  } catch (e) {
    fs.rmSync(moved, { force: true });
    throw e;
  }
  if (content === stale) {
    fs.rmSync(moved, { force: true });
    return;
  }
  try {
    fs.linkSync(moved, lockFile);
  } catch {
    // Another opener created a lock meanwhile: it holds the tape, and so did the one we moved.
  } finally {
    fs.rmSync(moved, { force: true });
  }
  const lock = parseLock(content);
  throw lockedError(file, { ...lock, pid: Number.isInteger(lock.pid) ? lock.pid : 0 });
}

/** The pid of the live process holding the tape's lock (see isHeld), or null when no live process holds it. */
export function lockHolder(file: string): number | null {
  const content = readLock(lockPathOf(file));
  if (content === null) return null;
  const lock = parseLock(content);
  return Number.isInteger(lock.pid) && lock.pid > 0 && isHeld(lock) ? lock.pid : null;
}
