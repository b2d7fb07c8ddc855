import { promises as fs } from 'fs';
import * as path from 'path';

/** A path the workspace refuses to reach; the message is written for the model to read. */
export class OutsideWorkspaceError extends Error {
  override readonly name = 'OutsideWorkspaceError';
}

export interface ConfinedPath {
  /** Absolute, with every existing symlink resolved, so the operation cannot be redirected later in the path. */
  readonly real: string;
  /** Workspace-relative, `/`-separated ('.' for the root), for messages. */
  readonly rel: string;
}

/** True when `child` is `root` or below it (both absolute and normalised). */
function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function toPosix(rel: string): string {
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves `input` against `realRoot` (the root's own realpath) and refuses anything that leaves it:
 * `..` that climbs out, absolute paths elsewhere, and symlinks (in the target or in any parent) that
 * lead outside. For a path that does not exist yet, the nearest existing parent is checked.
 */
export async function confine(realRoot: string, input: string): Promise<ConfinedPath> {
  if (input.includes('\0')) throw new OutsideWorkspaceError(`path ${JSON.stringify(input)} contains a NUL character`);
  const resolved = path.resolve(realRoot, input);
  if (!isWithin(realRoot, resolved)) {
    throw new OutsideWorkspaceError(`path ${JSON.stringify(input)} is outside the workspace root; use a path inside it`);
  }
  const real = await realpathOfNearest(resolved, input);
  if (!isWithin(realRoot, real)) {
    throw new OutsideWorkspaceError(`path ${JSON.stringify(input)} leads outside the workspace root through a symlink`);
  }
  return { real, rel: toPosix(path.relative(realRoot, real)) };
}

async function realpathOfNearest(absolute: string, input: string): Promise<string> {
  try {
    return await fs.realpath(absolute);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  // realpath fails for a dangling symlink too; following it on write would create its target
  // wherever it points, so such a link is refused rather than resolved by hand.
  if (await lstatOrUndefined(absolute)) {
    throw new OutsideWorkspaceError(`path ${JSON.stringify(input)} is a symlink whose target does not exist`);
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(await realpathOfNearest(parent, input), path.basename(absolute));
}

async function lstatOrUndefined(p: string) {
  try {
    return await fs.lstat(p);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
