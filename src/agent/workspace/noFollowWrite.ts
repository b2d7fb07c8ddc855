import { constants, promises as fs } from 'fs';

// O_NOFOLLOW does not exist on Windows, where creating a symlink needs a privilege anyway.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);

/**
 * Writes `content` to `real`, a path already confined (every symlink in it resolved), refusing to
 * follow a symlink at the last step: one swapped in after the check would otherwise redirect the
 * write wherever it points. `rel` names the file in the message.
 */
export async function writeNoFollow(real: string, rel: string, content: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, WRITE_FLAGS, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new Error(`${rel} became a symlink after it was checked; refusing to write through it`, { cause: error });
    throw error;
  }
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}
