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
 * One writer per tape (SPEC 2.9): `<file>.lock` created with O_EXCL, holding the writer's pid.
 * A lock whose pid is dead (a crashed writer) is taken over. The same process opening the file
 * twice is refused too, because its own pid is alive. Returns the release function.
 */
export function acquireLock(file: string): () => void {
  const lockFile = lockPathOf(file);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(lockFile, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw e;
    }
    let holder = NaN;
    try {
      holder = Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10);
    } catch {
      continue; // released between our open and read: try again
    }
    if (!Number.isInteger(holder) || holder <= 0) {
      // No pid yet: a writer between create and write holds it, unless that writer died there long ago.
      if (Date.now() - fs.statSync(lockFile).mtimeMs < EMPTY_LOCK_GRACE_MS) throw new TapeLockedError(file, 0);
    } else if (isAlive(holder)) {
      throw new TapeLockedError(file, holder);
    }
    fs.rmSync(lockFile, { force: true });
  }
}
