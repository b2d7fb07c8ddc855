import * as fs from 'fs';
import * as path from 'path';
import type { Disposable } from './appendEvents';

/**
 * Calls `onChange` when `file` may have changed, at most once per tick. The directory is watched,
 * not the file: a file watch follows the inode, and journals and snapshots are replaced by rename.
 * A poll backs the watch up, since network and some container file systems never report changes.
 */
export function watchFile(file: string, onChange: () => void, pollMs = 1000): Disposable {
  const name = path.basename(file);
  let scheduled = false;
  const fire = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      onChange();
    });
  };
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(path.dirname(path.resolve(file)), { persistent: false }, (_event, changed) => {
      if (changed === null || changed.toString() === name) fire();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // No watch here (inotify limit reached, unsupported file system): the poll alone follows.
  }
  const poll = setInterval(fire, pollMs);
  poll.unref();
  return {
    dispose: () => {
      watcher?.close();
      clearInterval(poll);
    },
  };
}
