import * as fs from 'fs';
import { TapeFileError, TapeFileTooLargeError } from './errors';

/**
 * Every file we read may come from a cloned repository written by someone else: a symlink to
 * /dev/zero, a FIFO nobody writes to, a multi-gigabyte blob. So a file is opened once, the
 * descriptor (not the path, which can be swapped after a check) is checked with fstat, and the
 * bytes are read through that same descriptor. O_NONBLOCK keeps the open itself from waiting on a
 * FIFO; it changes nothing for the reads of a regular file.
 */
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const OPEN_FLAGS = fs.constants.O_RDONLY | NONBLOCK;

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

const mib = (n: number): string => `${Math.round((n / (1 << 20)) * 10) / 10} MiB`;

function openError(file: string, e: unknown): TapeFileError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new TapeFileError(file, 'does not exist');
  if (code === 'EISDIR') return new TapeFileError(file, 'is a directory, not a file');
  if (code === 'ELOOP') return new TapeFileError(file, 'is a symbolic link loop');
  return new TapeFileError(file, `cannot be read: ${(e as Error).message}`);
}

/** Refuses what is not a regular file, or (when `maxBytes` is given) one larger than it. */
function check(file: string, stat: fs.Stats, maxBytes: number | undefined, what: string): void {
  if (!stat.isFile()) throw new TapeFileError(file, `is ${kindOf(stat)}, not a regular file; refusing to read it`);
  if (maxBytes !== undefined && stat.size > maxBytes) {
    throw new TapeFileTooLargeError(file, `is ${mib(stat.size)}, over the ${mib(maxBytes)} limit for ${what}; refusing to read it`);
  }
}

export interface RegularFd {
  readonly fd: number;
  readonly stat: fs.Stats;
}

/**
 * Opens a regular file for reading (see above), or with `write` for reading and writing (a journal
 * its writer appends to, a repair's truncation); the caller closes the descriptor.
 */
export function openRegularSync(file: string, maxBytes?: number, what = 'this kind of file', write = false): RegularFd {
  let fd: number;
  try {
    fd = fs.openSync(file, write ? fs.constants.O_RDWR | NONBLOCK : OPEN_FLAGS);
  } catch (e) {
    throw openError(file, e);
  }
  return checkedSync(file, fd, maxBytes, what);
}

function checkedSync(file: string, fd: number, maxBytes: number | undefined, what: string): RegularFd {
  try {
    const stat = fs.fstatSync(fd);
    check(file, stat, maxBytes, what);
    return { fd, stat };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

export interface RegularHandle {
  readonly handle: fs.promises.FileHandle;
  readonly stat: fs.Stats;
}

export async function openRegular(file: string, maxBytes?: number, what = 'this kind of file'): Promise<RegularHandle> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, OPEN_FLAGS);
  } catch (e) {
    throw openError(file, e);
  }
  try {
    const stat = await handle.stat();
    check(file, stat, maxBytes, what);
    return { handle, stat };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * Reads at most `limit` bytes of an open descriptor from `from` (the start by default; a followed
 * file's new part from where the last read ended), stopping at the size fstat gave: a file that
 * grows while it is read (a log) is read as it was when opened.
 */
export function readUpToSync(fd: number, size: number, limit: number, from = 0): Buffer {
  const want = Math.max(0, Math.min(size - from, limit));
  const bytes = Buffer.allocUnsafe(want);
  let off = 0;
  while (off < want) {
    const n = fs.readSync(fd, bytes, off, want - off, from + off);
    if (n === 0) break;
    off += n;
  }
  return off === want ? bytes : bytes.subarray(0, off);
}

/** A whole regular file no larger than `maxBytes`, read through the descriptor that was checked. */
export function readRegularFileSync(file: string, maxBytes: number, what: string): Buffer {
  return readWholeSync(openRegularSync(file, maxBytes, what), maxBytes);
}

/** readRegularFileSync of a file that may not exist yet (a tape's journal before its first append): null then. */
export function readRegularFileIfExistsSync(file: string, maxBytes: number, what: string): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw openError(file, e);
  }
  return readWholeSync(checkedSync(file, fd, maxBytes, what), maxBytes);
}

function readWholeSync({ fd, stat }: RegularFd, maxBytes: number): Buffer {
  try {
    return readUpToSync(fd, stat.size, maxBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** The async twin of readRegularFileSync. */
export async function readRegularFile(file: string, maxBytes: number, what: string): Promise<Buffer> {
  const { handle, stat } = await openRegular(file, maxBytes, what);
  try {
    return await readUpTo(handle, stat.size, maxBytes);
  } finally {
    await handle.close();
  }
}

/**
 * At most `limit` bytes from the start of a regular file of any size, and the file's size: for
 * reads that show a prefix (a tool's capped read) without ever holding the rest.
 */
export async function readRegularPrefix(file: string, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const { handle, stat } = await openRegular(file);
  try {
    return { bytes: await readUpTo(handle, stat.size, limit), size: stat.size };
  } finally {
    await handle.close();
  }
}

async function readUpTo(handle: fs.promises.FileHandle, size: number, limit: number): Promise<Buffer> {
  const want = Math.min(size, limit);
  const bytes = Buffer.allocUnsafe(want);
  let off = 0;
  while (off < want) {
    const { bytesRead } = await handle.read(bytes, off, want - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off === want ? bytes : bytes.subarray(0, off);
}
