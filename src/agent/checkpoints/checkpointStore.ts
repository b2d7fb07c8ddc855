import { createHash } from 'crypto';
import { promises as fs, realpathSync } from 'fs';
import * as path from 'path';
import { errorMessage } from '../../tape/errorMessage';
import { MAX_LISTED_PATHS, type CheckpointWorkspace, type FileChange, type SkippedFile } from '../../tape/workspaceCheckpoint';
import { GitError, nulFields, runGit, type GitRun, type GitTracker, type GitWork, type ShadowPlace } from './shadowGit';
import { withStoreLock } from './storeLock';

/** What a checkpoint takes in, and when a workspace is too large for checkpoints at all. */
export interface CheckpointLimits {
  /** A file larger than this is skipped (left out of the snapshot, and so never restored). */
  maxFileBytes: number;
  /** A workspace with more files than this (not counting ignored ones) gets no checkpoints. */
  maxFiles: number;
  /** Nor does one whose snapshot would take in more than this many bytes at once. */
  maxNewBytes: number;
}

/**
 * 30,000 files: a first checkpoint of 50,000 took 372 s on a 2-core machine at load 16-17 (each git
 * run inside its deadline, but not by much), 30,000 206 s at load 19.5, 10,000 36 s
 * (bench/checkpointDeadline.bench.ts).
 */
export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = { maxFileBytes: 2 * 1024 * 1024, maxFiles: 30_000, maxNewBytes: 1024 * 1024 * 1024 };

/** The workspace is over a limit of CheckpointLimits: checkpoints are off for it. */
export class WorkspaceTooLargeError extends Error {}

/** A restore was asked for a checkpoint the store does not hold (made elsewhere, or the store was removed). */
export class CheckpointMissingError extends Error {}

/**
 * Files the plan touches changed after it was made: applying it would overwrite what it never
 * showed. Nothing was changed; a new plan shows them.
 */
export class StalePlanError extends Error {
  constructor(readonly files: string[]) {
    super(`${listOf(files)} changed after the restore was planned: nothing was changed; plan the restore again to see them`);
  }
}

/**
 * Writing the files failed part way. The workspace was then brought back to `before` (the files as
 * they were when the writing began): `differing` lists what could not be (empty when all was).
 */
export class RestoreWriteError extends Error {
  constructor(
    readonly before: Snapshot,
    readonly failure: unknown,
    readonly differing: string[],
  ) {
    super(
      `the restore failed part way (${errorMessage(failure)}); ${
        differing.length === 0
          ? 'every file was put back as it was'
          : `${listOf(differing)} could not be put back as ${differing.length === 1 ? 'it was' : 'they were'}`
      }`,
    );
  }
}

export interface ApplyOptions {
  signal?: AbortSignal;
  /**
   * Runs once the plan is checked against the workspace, right before the first file is written,
   * with the workspace as it is then: whatever it records (the `before_restore` checkpoint) is what
   * a failure brings back. When it rejects, nothing is written.
   */
  beforeWrite?: (before: Snapshot) => Promise<void>;
}

export interface Snapshot {
  checkpointId: string;
  previousId: string | null;
  fileCount: number;
  files: FileChange[];
  filesOmitted: number;
  skipped: SkippedFile[];
  skippedOmitted: number;
  durationMs: number;
}

/** What a restore will do, computed before anything changes: shown first, then applied. */
export interface RestorePlan {
  /** The workspace as it is now, snapshotted: undoing the restore is restoring this. */
  before: Snapshot;
  targetId: string;
  changed: string[];
  created: string[];
  removed: string[];
  /** Paths the target holds that exist now outside every checkpoint (ignored, too large): left alone. */
  leftAlone: string[];
}

export const isEmptyPlan = (plan: RestorePlan): boolean => plan.changed.length + plan.created.length + plan.removed.length === 0;

export interface CheckpointStoreOptions {
  /** False: a missing store is a CheckpointMissingError rather than made (a restore has nothing to read in a new one). */
  create?: boolean;
  /** Absolute paths never taken in (the tape's own files, the store itself): a path equal to one or under it. */
  exclude?: readonly string[];
  limits?: Partial<CheckpointLimits>;
  /** How long a store another live process is using is waited for before an operation fails (default 60 s). */
  lockWaitMs?: number;
}

const DEFAULT_LOCK_WAIT_MS = 60_000;

/**
 * Snapshots of a workspace in a shadow git repository beside the tape, on the system `git`: the
 * store is a bare repository of its own; each workspace it serves has an index and a ref there
 * (`refs/tape/<hash of its real path>`), and git is always told that directory, that index and
 * the workspace as work tree, so the workspace's own `.git` (HEAD, index, refs, stash) is never
 * read or written. `.gitignore` files are honoured, as git honours them; nested repositories and
 * files over the size limit are skipped and reported. Each snapshot is a commit whose parent is
 * the one before, so every checkpoint stays reachable and nothing is ever pruned.
 */
export class CheckpointStore {
  private readonly place: ShadowPlace;
  private readonly key: string;
  private readonly ref: string;
  private readonly limits: CheckpointLimits;
  /** Workspace-relative prefixes never taken in. */
  private readonly excluded: string[];
  /** Files the last snapshot held; counted once per store object, then kept from the diffs. */
  private fileCount: number | undefined;
  private readonly create: boolean | undefined;
  private readonly lockWaitMs: number;
  /** The gits of the operation holding the store (serially) are recorded through it. */
  private tracker: GitTracker | undefined;

  private constructor(gitDir: string, workTree: string, options: CheckpointStoreOptions) {
    const key = createHash('sha256').update(workTree).digest('hex').slice(0, 16);
    this.key = key;
    this.place = { gitDir, workTree, indexFile: path.join(gitDir, `index-${key}`) };
    this.ref = `refs/tape/${key}`;
    this.limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...options.limits };
    this.create = options.create;
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    // The store itself always: inside the workspace, a snapshot would take in its own objects and index.
    const exclude = new Set([...(options.exclude ?? []), gitDir].map((p) => path.relative(workTree, realParent(path.resolve(p)))));
    this.excluded = [...exclude].filter((rel) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)).map(toSlash);
  }

  get workspaceRoot(): string {
    return this.place.workTree;
  }

  /** The workspace as the tape records it: a checkpoint of it is restored only into it. */
  get workspace(): CheckpointWorkspace {
    return { key: this.key, root: this.place.workTree };
  }

  /**
   * The store at `gitDir` (created when missing) for the workspace `root`. Rejects with
   * GitMissingError when git cannot be run, and GitError when the directory is not a store.
   */
  static async open(gitDir: string, root: string, options: CheckpointStoreOptions = {}): Promise<CheckpointStore> {
    const store = new CheckpointStore(path.resolve(gitDir), realpathSync(root), options);
    await store.init();
    return store;
  }

  private async init(): Promise<void> {
    const { gitDir } = this.place;
    const made = await fs.stat(path.join(gitDir, 'HEAD')).then(
      () => false,
      () => true,
    );
    if (made && this.create === false) throw new CheckpointMissingError(`there is no checkpoint store at ${gitDir}`);
    if (made) {
      await fs.mkdir(gitDir, { recursive: true, mode: 0o700 });
      await this.serially(() => this.git(['init', '--quiet', '--bare', gitDir], { bare: true }));
    }
    // Written every time: a store made by an older build, or edited, gets the safe attributes back.
    await fs.mkdir(path.join(gitDir, 'info'), { recursive: true });
    await fs.writeFile(path.join(gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n', { mode: 0o600 });
  }

  /** The newest snapshot of this workspace; null before the first. */
  async head(): Promise<string | null> {
    const { code, stdout } = await this.git(['rev-parse', '--verify', '--quiet', `${this.ref}^{commit}`], { okCodes: [1] });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  async has(id: string): Promise<boolean> {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id)) return false;
    const { code } = await this.git(['cat-file', '-e', `${id}^{commit}`], { okCodes: [1, 128] });
    return code === 0;
  }

  /** Whether `id` is one of this workspace's snapshots (its ref's history), not another workspace's the store also serves. */
  async isOfThisWorkspace(id: string): Promise<boolean> {
    const head = await this.head();
    if (head === null || !(await this.has(id))) return false;
    return (await this.git(['merge-base', '--is-ancestor', id, head], { okCodes: [1] })).code === 0;
  }

  /**
   * Records the workspace as it is: takes in what changed since this workspace's last snapshot
   * (git's index knows what it saw, so an unchanged file costs a stat) and lists the files changed
   * since `diffFrom` (default: that last snapshot). Rejects with WorkspaceTooLargeError over a limit.
   */
  snapshot(options: { diffFrom?: string | null; signal?: AbortSignal } = {}): Promise<Snapshot> {
    return this.serially(() => this.takeSnapshot(options), options.signal);
  }

  private async takeSnapshot(options: { diffFrom?: string | null; signal?: AbortSignal }): Promise<Snapshot> {
    const started = Date.now();
    const { signal } = options;
    const head = await this.head();
    const listed = nulFields(
      (
        await this.git(
          [
            'ls-files',
            '-z',
            '-t',
            '--others',
            '--modified',
            '--deleted',
            '--exclude-standard',
            ...this.excluded.map((rel) => `--exclude=/${ignorePattern(rel)}`),
          ],
          // Every file of the workspace, up to the limit past which it gets no checkpoints.
          { signal, work: this.treeWork() },
        )
      ).stdout,
    );
    const add = new Set<string>();
    const untrack = new Set<string>();
    const skipped: SkippedFile[] = [];
    let newBytes = 0;
    let untracked = 0;
    // Stat in parallel: a first checkpoint meets every file of the workspace.
    const candidates = listed.map((line) => ({ tag: line.slice(0, 1), file: line.slice(2) }));
    const underLink = linkedDirectoryTest(this.place.workTree);
    const stats = await mapLimited(candidates, STAT_CONCURRENCY, async ({ tag, file }) => {
      if (file.endsWith('/') || this.isExcluded(file)) return undefined;
      // A tracked file whose directory became a symlink is gone as git sees the work tree (git
      // refuses a path "beyond a symbolic link"): it leaves the index; the link comes in as itself.
      if (tag !== '?' && (await underLink(file))) return BEYOND_LINK;
      return tag === 'R' ? undefined : fs.lstat(path.join(this.place.workTree, file)).catch(() => undefined);
    });
    candidates.forEach(({ tag, file }, i) => {
      const stat = stats[i];
      if (file.endsWith('/')) return void skipped.push({ path: file.slice(0, -1), reason: 'nested_repository' });
      if (this.isExcluded(file)) return;
      if (stat === BEYOND_LINK) return void untrack.add(file);
      if (stat === undefined) return void add.add(file);
      // A tracked file or link that is a directory now: it leaves the index, and the files in it (listed too) come in.
      if (stat.isDirectory()) return void untrack.add(file);
      if (stat.isFile() && stat.size > this.limits.maxFileBytes) {
        skipped.push({ path: file, reason: 'too_large', size: stat.size });
        if (tag !== '?') untrack.add(file);
        return;
      }
      if (tag === '?') untracked++;
      newBytes += stat.size;
      add.add(file);
    });
    for (const rel of this.excluded) {
      const there = await fs.lstat(path.join(this.place.workTree, rel)).catch(() => undefined);
      if (there !== undefined) skipped.push({ path: rel, reason: 'tape_file' });
    }
    this.fileCount ??= head === null ? 0 : nulFields((await this.git(['ls-files', '-z', '--cached'], { signal, work: this.treeWork() })).stdout).length;
    if (this.fileCount + untracked > this.limits.maxFiles)
      throw new WorkspaceTooLargeError(`the workspace has more than ${this.limits.maxFiles} files outside .gitignore (${this.fileCount + untracked})`);
    if (newBytes > this.limits.maxNewBytes)
      throw new WorkspaceTooLargeError(`a checkpoint would take in ${mib(newBytes)} at once, more than the limit of ${mib(this.limits.maxNewBytes)}`);

    // The index takes the exact paths listed (update-index, not add: add matches every file of the
    // workspace against every pathspec, so a first checkpoint of 40,000 files spent 20 s of CPU there).
    // Without a HEAD of its own the store's `rm --cached` would refuse to unstage a changed file.
    if (untrack.size > 0) await this.git(['update-index', '--force-remove', '-z', '--stdin'], { input: nulJoin(untrack), signal });
    // Past bigFileThreshold, every blob is streamed into one pack instead of a loose file each: one
    // file in the store instead of 10,000 for a first checkpoint. Only here: diff takes files past the
    // threshold for binary. --replace: a file where a directory was (or the reverse) takes its place.
    if (add.size > 0)
      await this.git(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
        input: nulJoin(add),
        work: { files: add.size, bytes: newBytes },
        signal,
        config: ['core.bigFileThreshold=1'],
      });
    const tree = (await this.git(['write-tree'], { signal, work: { files: this.fileCount + untracked } })).stdout.toString('utf8').trim();
    let checkpointId = head;
    if (head === null || (await this.treeOf(head)) !== tree) {
      checkpointId = (await this.git(['commit-tree', tree, ...(head !== null ? ['-p', head] : []), '-m', 'checkpoint'], { signal })).stdout
        .toString('utf8')
        .trim();
      await this.git(['update-ref', this.ref, checkpointId, ...(head !== null ? [head] : [])], { signal });
    }
    const id = checkpointId as string;
    const previousId = options.diffFrom === undefined ? head : options.diffFrom;
    const files = previousId === null ? [] : await this.changes(previousId, id, signal);
    const sinceHead = previousId === head ? files : head === null ? [] : await this.changes(head, id, signal);
    this.fileCount +=
      head === null ? await this.countFiles(id) : sinceHead.filter((f) => f.change === 'added').length - sinceHead.filter((f) => f.change === 'deleted').length;
    if (add.size > 0 && checkpointId !== head) await this.repackWhenDue();
    return {
      checkpointId: id,
      previousId,
      fileCount: this.fileCount,
      files: files.slice(0, MAX_LISTED_PATHS),
      filesOmitted: Math.max(0, files.length - MAX_LISTED_PATHS),
      skipped: skipped.slice(0, MAX_LISTED_PATHS),
      skippedOmitted: Math.max(0, skipped.length - MAX_LISTED_PATHS),
      durationMs: Date.now() - started,
    };
  }

  /** The files that differ between two snapshots, in path order. */
  async changes(fromId: string, toId: string, signal?: AbortSignal): Promise<FileChange[]> {
    if (fromId === toId) return [];
    // Lines counted in every changed file: as many as a snapshot holds.
    const fields = nulFields(
      (await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', fromId, toId], { signal, work: this.treeWork() })).stdout,
    );
    const byPath = new Map<string, FileChange>();
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (field.startsWith(':')) {
        const status = field.slice(-1);
        const file = fields[++i];
        byPath.set(file, { path: file, change: status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified', added: null, removed: null });
        continue;
      }
      const counts = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(field);
      if (counts === null) throw new GitError(`git diff-tree printed a line this build does not read: ${JSON.stringify(field.slice(0, 80))}`);
      const change = byPath.get(counts[3]);
      if (change !== undefined && counts[1] !== '-') {
        change.added = Number(counts[1]);
        change.removed = Number(counts[2]);
      }
    }
    return [...byPath.values()];
  }

  /**
   * What restoring `targetId` would do, against a snapshot of the workspace taken now. Rejects with
   * CheckpointMissingError when the store does not hold the target. Nothing in the workspace changes.
   */
  planRestore(targetId: string, signal?: AbortSignal): Promise<RestorePlan> {
    return this.serially(() => this.plan(targetId, signal));
  }

  private async plan(targetId: string, signal?: AbortSignal): Promise<RestorePlan> {
    if (!(await this.has(targetId)))
      throw new CheckpointMissingError(`checkpoint ${targetId.slice(0, 12)} is not in the checkpoint store ${this.place.gitDir}`);
    const before = await this.takeSnapshot({ signal });
    const plan: RestorePlan = { before, targetId, changed: [], created: [], removed: [], leftAlone: [] };
    const changes = await this.changes(before.checkpointId, targetId, signal);
    for (const change of changes) {
      if (change.change === 'modified') plan.changed.push(change.path);
      else if (change.change === 'deleted') plan.removed.push(change.path);
    }
    const inTheWay = inTheWayTest(this.place.workTree, plan.removed);
    for (const { path: file, change } of changes) if (change === 'added') ((await inTheWay(file)) ? plan.leftAlone : plan.created).push(file);
    return plan;
  }

  /**
   * Applies a plan: the listed files become the target's (written, created or removed) and this
   * workspace's last snapshot becomes the target's tree, on top of the snapshot taken right before
   * writing, which stays in the store. Only the plan's paths are touched; everything else in the
   * workspace is left as it is. All or nothing: a plan path changed since the plan was made is a
   * StalePlanError before anything is written, and a write that fails part way puts every file back
   * before rejecting with RestoreWriteError. Resolves with the snapshot taken right before writing.
   */
  applyRestore(plan: RestorePlan, options: ApplyOptions = {}): Promise<Snapshot> {
    return this.serially(() => this.apply(plan, options));
  }

  private async apply(plan: RestorePlan, { signal, beforeWrite }: ApplyOptions): Promise<Snapshot> {
    if (isEmptyPlan(plan)) return plan.before;
    const before = await this.takeSnapshot({ signal });
    const stale = await this.changedSincePlan(plan, before, signal);
    if (stale.length > 0) throw new StalePlanError(stale);
    await beforeWrite?.(before);
    try {
      await this.write(plan.targetId, plan, signal);
    } catch (error) {
      throw new RestoreWriteError(before, error, await this.putBack(before));
    }
    const tree = await this.treeOf(plan.targetId);
    const head = await this.head();
    const commit = (await this.git(['commit-tree', tree, ...(head !== null ? ['-p', head] : []), '-m', `restored ${plan.targetId}`])).stdout
      .toString('utf8')
      .trim();
    await this.git(['update-ref', this.ref, commit, ...(head !== null ? [head] : [])]);
    this.fileCount = undefined;
    return before;
  }

  /**
   * The plan's paths that are not as the plan saw them: changed in the workspace since (a file,
   * or a directory above or below one), or, where the plan creates a file, something there now
   * that no checkpoint sees (ignored, too large).
   */
  private async changedSincePlan(plan: RestorePlan, now: Snapshot, signal?: AbortSignal): Promise<string[]> {
    const touched = new Set([...plan.changed, ...plan.created, ...plan.removed]);
    const above = new Set([...touched].flatMap(parentsOf));
    const moved = now.checkpointId === plan.before.checkpointId ? [] : await this.changes(plan.before.checkpointId, now.checkpointId, signal);
    const stale = moved.map((f) => f.path).filter((file) => touched.has(file) || above.has(file) || parentsOf(file).some((dir) => touched.has(dir)));
    const inTheWay = inTheWayTest(this.place.workTree, plan.removed);
    for (const file of plan.created) if (!stale.includes(file) && (await inTheWay(file))) stale.push(file);
    return stale;
  }

  /** Writes the target's version of the plan's paths (`targetId`'s), removals first. */
  private async write(targetId: string, paths: Pick<RestorePlan, 'changed' | 'created' | 'removed'>, signal?: AbortSignal): Promise<void> {
    // Removals first: a directory the target has as a file or link must be gone before that is written
    // (in one go git refuses: the directory's files no longer match the pathspecs once it replaced them).
    for (const step of [paths.removed, [...paths.changed, ...paths.created]])
      if (step.length > 0)
        await this.git(['restore', `--source=${targetId}`, '--staged', '--worktree', '--pathspec-from-file=-', '--pathspec-file-nul'], {
          input: nulJoin(step),
          signal,
        });
  }

  /**
   * After a failed write: the workspace back to `before`, as a restore of it planned from the files
   * as they are now (only what the failed write got to differs). Not cancellable: a cancel is what
   * it may be cleaning up after. Resolves with the paths that still differ from `before`.
   */
  private async putBack(before: Snapshot): Promise<string[]> {
    try {
      const back = await this.plan(before.checkpointId);
      if (!isEmptyPlan(back)) await this.write(before.checkpointId, back).catch(() => undefined);
      this.fileCount = undefined;
      const now = await this.takeSnapshot({});
      return (await this.changes(before.checkpointId, now.checkpointId)).map((f) => f.path);
    } catch (error) {
      return [`(unknown: the files could not be compared with checkpoint ${before.checkpointId.slice(0, 12)}: ${errorMessage(error)})`];
    }
  }

  /** A file's bytes in a snapshot; null when the snapshot has no such file. Rejects past `maxBytes`. */
  async fileAt(id: string, file: string, maxBytes: number): Promise<Buffer | null> {
    const entry = nulFields((await this.git(['ls-tree', '-z', '-l', '--full-tree', id, '--', file])).stdout)[0];
    if (entry === undefined) return null;
    const [, type, blob, size] = /^\d+ (\w+) ([0-9a-f]+) +(\d+|-)\t/.exec(entry) ?? [];
    if (type !== 'blob') return null;
    if (Number(size) > maxBytes)
      throw new GitError(`${file} is ${mib(Number(size))} in checkpoint ${id.slice(0, 12)}, more than ${mib(maxBytes)} can be shown`);
    return (await this.git(['cat-file', 'blob', blob], { maxOutputBytes: maxBytes })).stdout;
  }

  /**
   * Every snapshot that takes files in leaves a small pack and its trees and commit loose, a few
   * 4 KiB blocks each: 100 turns of 5 changed files grew a 10,000-file store by 4.6 MiB, in 1,000
   * files. Past PACKS_BEFORE_REPACK packs they are all repacked into one (deltas found, nothing
   * reachable dropped: every snapshot is on a ref): the same store 2.2 MiB in all, for 0.4 s once
   * every 25 or so turns. A failed repack changes nothing (git removes the old packs only once the
   * new one is written), so it is left to the next snapshot rather than failing this one.
   */
  private async repackWhenDue(): Promise<void> {
    const packs = await fs.readdir(path.join(this.place.gitDir, 'objects', 'pack')).catch(() => []);
    if (packs.filter((name) => name.endsWith('.pack')).length <= PACKS_BEFORE_REPACK) return;
    await this.git(['repack', '-a', '-d', '-q'], { bare: true, work: this.treeWork() }).catch(() => undefined);
  }

  private async treeOf(commit: string): Promise<string> {
    return (await this.git(['rev-parse', `${commit}^{tree}`])).stdout.toString('utf8').trim();
  }

  private async countFiles(commit: string): Promise<number> {
    return nulFields((await this.git(['ls-tree', '-r', '-z', '--name-only', commit], { work: this.treeWork() })).stdout).length;
  }

  /** A run over the whole snapshot: the files the last one held, or as many as the limit allows before the first is counted. */
  private treeWork(): GitWork {
    return { files: this.fileCount ?? this.limits.maxFiles };
  }

  private isExcluded(file: string): boolean {
    // A prefix, as the ls-files pattern: the tape file's journal, lock and store start with its name.
    return this.excluded.some((rel) => file.startsWith(rel));
  }

  /**
   * Runs `fn` holding the store (storeLock.ts), once every write before it, of this process or
   * another, has ended. Sessions of one workspace share a store: two snapshots at once met on the
   * index's lock or the ref's compare-and-swap, and one failed (its session's checkpoints then
   * off), or both read the same head and listed the same changes. Git lock files a dead git left
   * are removed first.
   */
  private serially<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withStoreLock(this.place.gitDir, { waitMs: this.lockWaitMs, signal }, async (tracker) => {
      this.tracker = tracker;
      try {
        return await fn();
      } finally {
        this.tracker = undefined;
      }
    });
  }

  private git(args: readonly string[], options?: GitRun) {
    return runGit(this.place, args, { tracker: this.tracker, ...options });
  }
}

/** A path with its directory's symlinks resolved, as the work tree's are; the file itself may not exist yet. */
function realParent(p: string): string {
  try {
    return path.join(realpathSync(path.dirname(p)), path.basename(p));
  } catch {
    return p;
  }
}

const STAT_CONCURRENCY = 64;

/** Packs a store holds before the next snapshot repacks them into one. */
export const PACKS_BEFORE_REPACK = 25;

const BEYOND_LINK = 'beyond_link';

/** Whether a workspace-relative path has a symlink among its directories; each directory is looked at once. */
function linkedDirectoryTest(root: string): (file: string) => Promise<boolean> {
  const seen = new Map<string, Promise<boolean>>();
  const isLink = (dir: string): Promise<boolean> => {
    let known = seen.get(dir);
    if (known === undefined) {
      known = fs.lstat(path.join(root, dir)).then(
        (stat) => stat.isSymbolicLink(),
        () => false,
      );
      seen.set(dir, known);
    }
    return known;
  };
  return async (file) => {
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) if (await isLink(file.slice(0, slash))) return true;
    return false;
  };
}

/** `fn` over `items` with at most `limit` running at once, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const toSlash = (p: string): string => p.split(path.sep).join('/');
const nulJoin = (paths: Iterable<string>): string => [...paths].join('\0') + '\0';
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Whether something is where a restore would create `file`: a file or link, or a directory holding
 * more than the plan's `removed` files (one holding only those goes once they do). Under a directory
 * that is now a symlink, a path is not in the workspace (whatever the link's target holds).
 */
function inTheWayTest(root: string, removed: readonly string[]): (file: string) => Promise<boolean> {
  const removing = new Set(removed);
  const underLink = linkedDirectoryTest(root);
  return async (file) => {
    const there = (await underLink(file)) ? undefined : await fs.lstat(path.join(root, file)).catch(() => undefined);
    return there !== undefined && !(there.isDirectory() && (await holdsOnly(root, file, removing)));
  };
}

/** The directories a workspace-relative path is in, outermost first (`a/b/c` → `a`, `a/b`). */
function parentsOf(file: string): string[] {
  const dirs: string[] = [];
  for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) dirs.push(file.slice(0, slash));
  return dirs;
}

const LISTED_IN_ERRORS = 20;
const listOf = (files: readonly string[]): string =>
  files.slice(0, LISTED_IN_ERRORS).join(', ') + (files.length > LISTED_IN_ERRORS ? ` and ${files.length - LISTED_IN_ERRORS} more` : '');

/** Whether every file under the directory `dir` (workspace-relative) is one of `files`. */
async function holdsOnly(root: string, dir: string, files: ReadonlySet<string>): Promise<boolean> {
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const entry of await fs.readdir(path.join(root, next), { withFileTypes: true })) {
      const rel = `${next}/${entry.name}`;
      if (entry.isDirectory()) pending.push(rel);
      else if (!files.has(rel)) return false;
    }
  }
  return true;
}

/** A path as a gitignore pattern matching it and anything that starts with it (`t.tape.sqlite*`: its journal, lock and store). */
function ignorePattern(rel: string): string {
  return `${rel.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}*`;
}
