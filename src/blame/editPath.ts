import * as path from 'path';

/** True when `child` is `root` or below it (both absolute and normalised). */
function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const slashed = (rel: string): string => rel.split(path.sep).join('/');

/**
 * Where a path an edit wrote is in this workspace: `/`-separated and relative to `workspaceRoot`,
 * or null when it is not one of the workspace's files. `cwd` is the folder the session ran in, as
 * it recorded it (null when it recorded none: the path is then the workspace's own, as our agent
 * writes it). The session may have run in another checkout of the project: a relative path, or an
 * absolute one inside its cwd, is read relative to the cwd and so names the same file here; when the
 * cwd is a folder of this workspace, the path is under that folder. An absolute path outside the cwd
 * counts only when it is inside this workspace.
 */
export function workspacePathOf(written: string, cwd: string | null, workspaceRoot: string): string | null {
  if (written === '' || written.includes('\0')) return null;
  const root = path.resolve(workspaceRoot);
  const base = cwd !== null && path.isAbsolute(cwd) ? path.resolve(cwd) : null;
  // A cwd inside this workspace is its own sub-folder; any other is a checkout the workspace mirrors.
  const mirror = base === null ? root : isWithin(root, base) ? base : root;
  let rel: string;
  if (!path.isAbsolute(written)) rel = path.normalize(written);
  else if (base !== null && isWithin(base, path.resolve(written))) rel = path.relative(base, path.resolve(written));
  else if (isWithin(root, path.resolve(written))) return relativeTo(root, path.resolve(written));
  else return null;
  if (rel === '' || rel === '.') return null;
  return relativeTo(root, path.resolve(mirror, rel));
}

function relativeTo(root: string, absolute: string): string | null {
  if (!isWithin(root, absolute)) return null;
  const rel = path.relative(root, absolute);
  return rel === '' ? null : slashed(rel);
}
