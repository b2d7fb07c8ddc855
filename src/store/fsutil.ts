import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from './errors';

/**
 * Makes a rename durable: on Linux/macOS a rename is only on disk once its directory is fsynced.
 * Windows cannot open a directory for fsync, and NTFS journals the rename itself, so skip there.
 */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const h = await fs.promises.open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** A file's size, 0 when it does not exist (a tape without a journal yet). */
export const fileSize = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);

/** A file's inode, null when it does not exist: tells a file from the one renamed over it. */
export function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}

/**
 * The mode of every file the store creates (tapes, journals, locks, exports, set-aside bytes): a
 * tape holds whole conversations, tool output and whatever secrets passed through them, so it is
 * the user's alone, whatever the umask.
 */
export const PRIVATE_FILE_MODE = 0o600;

export function refuseExisting(dst: string): void {
  if (fs.existsSync(dst)) throw new TapeFileError(dst, 'already exists; refusing to overwrite it (choose another destination or delete it first)');
}

/**
 * Writes bytes durably under `dst`: a temp file beside it, fsync, rename, fsync the directory.
 * `chunks` may be produced as they are written (an export streams its pages); one that throws
 * removes the temp file and leaves `dst` as it was.
 * A crash leaves either the old file or the new one, never a mix. With `exclusive`, an existing
 * `dst` is refused instead of replaced (the check runs again just before the rename).
 * `beforeCommit` runs once the bytes are synced, before they replace `dst`; throwing there leaves
 * `dst` as it was.
 */
export async function writeFileDurably(
  dst: string,
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  exclusive: boolean,
  beforeCommit?: () => void,
): Promise<void> {
  if (exclusive) refuseExisting(dst);
  const tmp = `${dst}.tmp-${process.pid}-${Date.now().toString(36)}`;
  const h = await fs.promises.open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    for await (const c of chunks) await h.write(c);
    await h.datasync();
  } catch (e) {
    await h.close();
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
  await h.close();
  try {
    beforeCommit?.();
    if (exclusive) {
      // link() fails when dst exists, unlike rename(): the refusal holds even against a racing writer.
      await fs.promises.link(tmp, dst).catch((e: NodeJS.ErrnoException) => {
        throw e.code === 'EEXIST' ? new TapeFileError(dst, 'already exists; refusing to overwrite it') : e;
      });
      await fs.promises.unlink(tmp);
    } else {
      await fs.promises.rename(tmp, dst);
    }
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(path.dirname(path.resolve(dst)));
}

/**
 * Removes the temp files a killed writeFileDurably, journal rotation or repair left beside `file`
 * (`<file>.tmp-*`, `<file>.tapelog.tmp-*`, `<file>.tapelog.damaged-*.tmp-*`). Only for the lock
 * holder: nobody else writes them.
 */
export function removeTempFiles(file: string): string[] {
  const dir = path.dirname(path.resolve(file));
  const base = path.basename(file);
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const damagedCopy = name.startsWith(`${base}.tapelog.damaged-`) && name.includes('.tmp-');
    if (name.startsWith(`${base}.tmp-`) || name.startsWith(`${base}.tapelog.tmp-`) || damagedCopy) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    }
  }
  return removed;
}
