import * as fs from 'fs';
import * as path from 'path';
import * as z from 'zod';
import { readRegularFileSync } from '../../store/safeRead';
import { sha256Hex } from '../../tape/canonicalJson';
import { listDir } from '../sourceFiles';

/**
 * Where Gemini CLI keeps a project's files: `~/.gemini/tmp/<id>/`, `<id>` being the SHA-256 of the
 * project root (every version's `projectHash`, and the folder's name up to v0.28) or, from v0.29,
 * a short slug of the root's name that `~/.gemini/projects.json` maps the root to and that a
 * `.project_root` file in the folder names the root of (gemini-cli's ProjectRegistry). The root is
 * the folder Gemini CLI ran in, `path.resolve`d; Windows compares it in lower case.
 */

/** The marker naming the project root a slug folder belongs to. */
const PROJECT_ROOT_FILE = '.project_root';
/** A project root is a path: a marker or registry larger than this is not Gemini CLI's. */
const MARKER_MAX_BYTES = 64 * 1024;
const REGISTRY_MAX_BYTES = 4 * 1024 * 1024;
/** A home folder with more project folders than this is not scanned further for markers. */
const MAX_PROJECT_DIRS = 10_000;

export const geminiTmpDir = (home: string): string => path.join(home, '.gemini', 'tmp');

/** A root as Gemini CLI's registry compares roots. */
const normalizedRoot = (root: string): string => (process.platform === 'win32' ? path.resolve(root).toLowerCase() : path.resolve(root));

/** The project hash Gemini CLI records for a root (`getProjectHash`): the SHA-256 of the path as it had it. */
export const projectHashOf = (root: string): string => sha256Hex(root);

/**
 * The spellings of a workspace Gemini CLI may have hashed: as given, resolved; with the drive letter
 * in the other case (VS Code writes `c:`, a shell's cwd `C:`); and with symbolic links resolved (a
 * shell's cwd often is).
 */
export function rootSpellings(workspace: string): string[] {
  const resolved = path.resolve(workspace);
  const out = new Set([resolved]);
  const drive = /^([a-zA-Z]):/.exec(resolved)?.[1];
  if (drive !== undefined) out.add((drive === drive.toLowerCase() ? drive.toUpperCase() : drive.toLowerCase()) + resolved.slice(1));
  try {
    out.add(fs.realpathSync(resolved));
  } catch {
    // A workspace that is not there (yet) is named as given.
  }
  return [...out];
}

/** The root a slug folder's `.project_root` names, or null when it has none that can be read. */
export function markedRootOf(projectDir: string): string | null {
  try {
    const root = readRegularFileSync(path.join(projectDir, PROJECT_ROOT_FILE), MARKER_MAX_BYTES, 'a Gemini CLI project marker').toString('utf8').trim();
    return root === '' ? null : root;
  } catch {
    return null;
  }
}

const registry = z.object({ projects: z.record(z.string(), z.string().regex(/^[a-z0-9-]+$/)) });

/** The slug `~/.gemini/projects.json` gives each root it knows, by normalized root. */
function registeredSlugs(home: string): Map<string, string> {
  try {
    const text = readRegularFileSync(path.join(home, '.gemini', 'projects.json'), REGISTRY_MAX_BYTES, 'the Gemini CLI project registry').toString('utf8');
    const parsed = registry.safeParse(JSON.parse(text));
    if (!parsed.success) return new Map();
    return new Map(Object.entries(parsed.data.projects).map(([root, slug]) => [normalizedRoot(root), slug]));
  } catch {
    return new Map();
  }
}

/** The slug Gemini CLI gives a new project: its folder's name in lower case, each run of other characters one `-`. */
const slugOf = (root: string): string =>
  path
    .basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '') || 'project';

/**
 * Whether `projectDir` (a folder of `~/.gemini/tmp`) holds the workspace's sessions: named by its
 * hash, or a slug folder whose marker names it (or, without a marker, the registry maps it to).
 */
export function isWorkspaceProject(projectDir: string, home: string, workspace: string): boolean {
  const name = path.basename(projectDir);
  const spellings = rootSpellings(workspace);
  if (spellings.some((r) => projectHashOf(r) === name)) return true;
  const wanted = new Set(spellings.map(normalizedRoot));
  const marked = markedRootOf(projectDir);
  if (marked !== null) return wanted.has(normalizedRoot(marked));
  const slugs = registeredSlugs(home);
  return [...wanted].some((r) => slugs.get(r) === name);
}

/**
 * The workspace's project folders: those that exist (its slug folder and the hash-named one a
 * v0.29 migration copied from, or left) and, when none is its slug folder yet, the one Gemini CLI
 * would create for it, so a watcher is there when it starts. Slug folders come first: the hash
 * folder's files are copies of theirs.
 */
export function workspaceProjectDirs(home: string, workspace: string): string[] {
  const tmp = geminiTmpDir(home);
  const spellings = rootSpellings(workspace);
  const wanted = new Set(spellings.map(normalizedRoot));
  const slugs = new Set<string>();
  const registered = registeredSlugs(home);
  for (const r of wanted) {
    const slug = registered.get(r);
    if (slug !== undefined) slugs.add(slug);
  }
  for (const e of listDir(tmp).slice(0, MAX_PROJECT_DIRS)) {
    if (!e.isDirectory()) continue;
    const marked = markedRootOf(path.join(tmp, e.name));
    if (marked !== null && wanted.has(normalizedRoot(marked))) slugs.add(e.name);
  }
  const owned = [...slugs].filter((s) => isWorkspaceProject(path.join(tmp, s), home, workspace));
  const predicted = slugOf(path.resolve(workspace));
  // A marker naming the workspace put the folder in `owned` already; one naming another root makes it theirs.
  if (owned.length === 0 && markedRootOf(path.join(tmp, predicted)) === null) owned.push(predicted);
  const hashed = [...new Set(spellings.map(projectHashOf))];
  return [...owned, ...hashed].map((id) => path.join(tmp, id));
}
