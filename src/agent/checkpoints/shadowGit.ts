import { spawn } from 'child_process';
import { errorMessage } from '../../tape/errorMessage';

/** The system `git` is not on the PATH (or cannot be started). */
export class GitMissingError extends Error {}

/** A git command of the checkpoint store failed; `stderr` says why. */
export class GitError extends Error {}

/** The place a shadow repository works on: its own git directory and index, and the workspace as its work tree. */
export interface ShadowPlace {
  gitDir: string;
  indexFile: string;
  workTree: string;
}

/** What a git run works through, which its deadline grows with. */
export interface GitWork {
  files: number;
  bytes?: number;
}

/** A git run's deadline: a base for any command, plus an allowance per file and per MiB it works through. */
export interface GitDeadline {
  baseMs: number;
  msPerFile: number;
  msPerMiB: number;
}

/**
 * Sized on a 2-core machine shared with seven other builds (load 11-15): `update-index` of a first
 * checkpoint took 2.0-2.3 ms a file (20,000 files in 37-44 s, 50,000 in 117 s), more than 5 ms a
 * file with a lint beside it (a whole first checkpoint of 50,000 files: 7.4 ms a file at load 16-17);
 * an idle machine takes a tenth of that. The fixed 60 s before stopped first checkpoints of 40,000
 * files half-way there. bench/checkpointDeadline.bench.ts measures a first checkpoint and a restore
 * against these.
 */
export const DEFAULT_GIT_DEADLINE: GitDeadline = { baseMs: 60_000, msPerFile: 8, msPerMiB: 400 };

/** When a git run that works through `work` is stopped. */
export const gitDeadlineMs = (work: GitWork, deadline: GitDeadline = DEFAULT_GIT_DEADLINE): number =>
  Math.round(deadline.baseMs + work.files * deadline.msPerFile + ((work.bytes ?? 0) / (1024 * 1024)) * deadline.msPerMiB);

/** Told when each git starts and ends, so a lock it leaves can be told from a live one's (storeLock.ts). */
export interface GitTracker {
  started(pid: number): void;
  ended(pid: number): void;
}

export interface GitRun {
  /** Written to git's stdin (NUL-separated pathspecs, say). */
  input?: string | Buffer;
  /**
   * The deadline's measure (gitDeadlineMs); by default the paths in `input`. Past the deadline git
   * is killed: a checkpoint never holds a turn longer than its work allows, whatever git meets.
   */
  work?: GitWork;
  deadline?: GitDeadline;
  tracker?: GitTracker;
  /** stdout kept up to this many bytes (default 64 MiB); more is an error, not a silent cut. */
  maxOutputBytes?: number;
  /** Exit codes that are answers, not failures (`cat-file -e` says 1 for a missing object). */
  okCodes?: readonly number[];
  signal?: AbortSignal;
  /** Without the work tree (`init` of the bare store refuses one). */
  bare?: boolean;
  /** `name=value` settings of this command only. */
  config?: readonly string[];
}

export interface GitOutput {
  code: number;
  stdout: Buffer;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_KEPT = 8 * 1024;

/**
 * Settings every invocation carries, so neither the user's configuration nor the workspace's
 * files can make git run a program, rewrite bytes or ask anything: no hooks, no fsmonitor, no
 * line-ending or filter conversion (`info/attributes` of the store unsets those attributes for
 * every path, which wins over the workspace's `.gitattributes`), no automatic gc, no pager.
 */
const SAFE_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.untrackedCache=true',
  'core.preloadIndex=true',
  'gc.auto=0',
  'safe.directory=*',
  'advice.addEmbeddedRepo=false',
  'commit.gpgSign=false',
  'user.name=Agent Tape',
  'user.email=checkpoints@agent-tape.invalid',
].flatMap((setting) => ['-c', setting]);

/**
 * Git's environment: nothing of ours (no API key, no GIT_* variable pointing at the user's
 * repository), no system or global configuration, pathspecs taken literally (a file named `*` is
 * that file), and the store's directory, index and work tree named explicitly, so the user's own
 * `.git` is never opened.
 */
function gitEnv(place: ShadowPlace, bare: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: place.gitDir,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_DIR: place.gitDir,
    GIT_WORK_TREE: place.workTree,
    GIT_INDEX_FILE: place.indexFile,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
  };
  if (bare) delete env.GIT_WORK_TREE;
  if (process.platform === 'win32') env.SystemRoot = process.env.SystemRoot;
  return env;
}

/** Runs one git command on the shadow repository; rejects with GitMissingError or GitError, never leaves git running. */
export function runGit(place: ShadowPlace, args: readonly string[], options: GitRun = {}): Promise<GitOutput> {
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const timeoutMs = gitDeadlineMs(options.work ?? { files: pathsIn(options.input) }, options.deadline);
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new GitError(`git ${args[0]}: cancelled`));
    const child = spawn('git', [...SAFE_CONFIG, ...(options.config ?? []).flatMap((c) => ['-c', c]), ...args], {
      cwd: options.bare === true ? place.gitDir : place.workTree,
      env: gitEnv(place, options.bare === true),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new GitError(`git ${args[0]} took longer than its deadline of ${timeoutMs} ms and was stopped`)), timeoutMs);
    const pid = child.pid;
    if (pid !== undefined)
      try {
        options.tracker?.started(pid);
      } catch (error) {
        stop(new GitError(`git ${args[0]} could not be recorded as running: ${errorMessage(error)}`));
      }
    const onAbort = () => stop(new GitError(`git ${args[0]}: cancelled`));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOutput) stop(new GitError(`git ${args[0]} printed more than ${maxOutput} bytes`));
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_KEPT) err += chunk.toString('utf8');
    });
    // git may exit before reading all of stdin (an error): that EPIPE is the exit code's to report.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??=
        error.code === 'ENOENT' ? new GitMissingError('git is not installed or not on the PATH') : new GitError(`git could not be started: ${error.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (pid !== undefined) options.tracker?.ended(pid);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure !== undefined) return reject(failure);
      if (code === 0 || (code !== null && options.okCodes?.includes(code))) return resolve({ code: code ?? 0, stdout: Buffer.concat(out) });
      reject(new GitError(`git ${args[0]} failed (exit ${code ?? 'signal'}): ${whatGitSaid(err) || 'no message'}`));
    });
  });
}

/**
 * Git's fatal and error lines whole (they name the file: "Unable to create '<path>.lock'"), else its
 * last three lines; the advice git prints after a lock error would otherwise push the path out.
 */
function whatGitSaid(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const said = lines.filter((line) => /^(fatal|error): /.test(line));
  return (said.length > 0 ? said : lines.slice(-3)).join(' ');
}

/** How many NUL-terminated paths an input holds. */
function pathsIn(input: string | Buffer | undefined): number {
  if (input === undefined) return 0;
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  let count = 0;
  for (let at = bytes.indexOf(0); at !== -1; at = bytes.indexOf(0, at + 1)) count++;
  return count;
}

/** NUL-separated fields of `-z` output. */
export function nulFields(out: Buffer): string[] {
  const text = out.toString('utf8');
  const fields = text.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}
