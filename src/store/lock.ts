import * as fs from 'fs';
import { TapeLockedError } from './errors';

const EMPTY_LOCK_GRACE_MS = 10_000;

export const lockPathOf = (file: string): string => `${file}.lock`;

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
 * Creates the lock already holding our pid, so a writer killed while taking it never leaves an
 * empty lock (which others must treat as held for a while): the pid goes into a file of our own,
 * which is then hard-linked into place, failing with EEXIST as O_EXCL does. Where hard links are
 * not supported, the lock is created with O_EXCL and written after.
 */
function createWithPid(lockFile: string): void {
  const own = `${lockFile}.${process.pid}-${Date.now().toString(36)}`;
  fs.writeFileSync(own, String(process.pid));
  try {
    fs.linkSync(own, lockFile);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
  } finally {
    fs.rmSync(own, { force: true });
  }
  const fd = fs.openSync(lockFile, 'wx');
  fs.writeSync(fd, String(process.pid));
  fs.closeSync(fd);
}

/**
 * One writer per tape (SPEC 2.9): `<file>.lock`, created exclusively, holding the writer's pid.
 * A lock whose pid is dead (a crashed writer) is taken over. The same process opening the file
 * twice is refused too, because its own pid is alive. Returns the release function.
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
    let content: string;
    try {
      content = fs.readFileSync(lockFile, 'utf8');
    } catch {
      continue; // released between our open and read: try again
    }
    const holder = Number.parseInt(content, 10);
    if (!Number.isInteger(holder) || holder <= 0) {
      // No pid yet: a writer between create and write holds it, unless that writer died there long ago.
      if (Date.now() - fs.statSync(lockFile).mtimeMs < EMPTY_LOCK_GRACE_MS) throw new TapeLockedError(file, 0);
    } else if (isAlive(holder)) {
      throw new TapeLockedError(file, holder);
    }
    removeStale(file, lockFile, content);
  }
}

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
  const content = fs.readFileSync(moved, 'utf8');
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
  throw new TapeLockedError(file, Number.parseInt(content, 10) || 0);
}

/** The pid of the live process holding the tape's lock, or null when no live process holds it. */
export function lockHolder(file: string): number | null {
  let content: string;
  try {
    content = fs.readFileSync(lockPathOf(file), 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(content, 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}
