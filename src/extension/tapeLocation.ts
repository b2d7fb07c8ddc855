import * as fs from 'fs';
import * as path from 'path';

/**
 * The folder of the workspace tape, given the extension's workspace storage folder
 * (`…/workspaceStorage/<id>/<extension id>`). A VS Code server gives a second window on the same
 * workspace `…/<id>-1/…` instead, because the first window's extension host holds a lock on
 * `<id>` (desktop VS Code skips that lock; the server does not). One workspace must have one tape,
 * whose own lock makes the second window read-only, so the `-N` suffix is dropped when the first
 * window's folder exists.
 */
export function workspaceTapeDir(storageDir: string): string {
  const parent = path.dirname(storageDir);
  const numbered = /^(.+)-\d+$/.exec(path.basename(parent));
  if (numbered === null) return storageDir;
  const first = path.join(path.dirname(parent), numbered[1]);
  return fs.existsSync(first) ? path.join(first, path.basename(storageDir)) : storageDir;
}
