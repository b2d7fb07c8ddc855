import { promises as fs } from 'fs';
import * as path from 'path';
import ignore, { type Ignore } from 'ignore';
import { readRegularFile } from '../../store/safeRead';

/** A .gitignore larger than this is someone's attack or mistake; it is passed over like an unreadable one. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

interface IgnoreLayer {
  /** The workspace-relative directory whose .gitignore this is ('' for the root). */
  readonly base: string;
  readonly rules: Ignore;
}

/**
 * Yields the workspace-relative (`/`-separated) path of every regular file under `realRoot` that git
 * would not ignore, in sorted depth-first order: each directory's .gitignore applies below it, a
 * deeper file overrides a shallower one, and an ignored directory is not entered. `.git` is skipped.
 * Symlinks are skipped, so the walk never reads outside the root and never loops.
 */
export async function* walkFiles(realRoot: string): AsyncGenerator<string> {
  yield* walkDir(realRoot, '', []);
}

async function* walkDir(realRoot: string, dirRel: string, layers: readonly IgnoreLayer[]): AsyncGenerator<string> {
  const dirAbs = path.join(realRoot, dirRel);
  let entries;
  try {
    entries = await fs.readdir(dirAbs, { withFileTypes: true });
  } catch {
    // A directory removed or unreadable mid-walk is skipped, as git would.
    return;
  }
  const own = entries.some((e) => e.name === '.gitignore' && e.isFile()) ? await readLayer(dirAbs, dirRel) : undefined;
  const active = own ? [...layers, own] : layers;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name === '.git' || isIgnored(active, `${rel}/`)) continue;
      yield* walkDir(realRoot, rel, active);
    } else if (entry.isFile() && !isIgnored(active, rel)) {
      yield rel;
    }
  }
}

async function readLayer(dirAbs: string, base: string): Promise<IgnoreLayer | undefined> {
  try {
    return { base, rules: ignore().add((await readRegularFile(path.join(dirAbs, '.gitignore'), MAX_GITIGNORE_BYTES, '.gitignore')).toString('utf8')) };
  } catch {
    return undefined;
  }
}

function isIgnored(layers: readonly IgnoreLayer[], rel: string): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const { base, rules } = layers[i];
    const result = rules.test(base === '' ? rel : rel.slice(base.length + 1));
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
