import { execFile } from 'child_process';

/** How long `git rev-parse` may take: it reads a few files, so more means something is wrong. */
const GIT_TIMEOUT_MS = 10_000;

/**
 * The commit the workspace's own git repository has checked out and the workspace's folder within
 * it (`sub/dir/`, or '' at its top), or null when the workspace is in no repository with a commit,
 * git is missing or fails. The repository is a clone from anywhere: git gets no system or global
 * configuration and no hooks or fsmonitor, nothing of our environment but PATH, and is killed at
 * its deadline; `rev-parse` runs no filter and reads no index.
 */
export function workspaceCommit(root: string): Promise<{ revision: string; prefix: string } | null> {
  const args = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'rev-parse', '--show-prefix', '--verify', '--quiet', 'HEAD^{commit}'];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
  if (process.platform === 'win32') env.SystemRoot = process.env.SystemRoot;
  return new Promise((resolve) => {
    execFile('git', args, { cwd: root, env, timeout: GIT_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024, windowsHide: true }, (error, stdout) => {
      const [prefix, revision] = error === null ? stdout.split('\n') : [];
      resolve(revision !== undefined && /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(revision) ? { revision, prefix } : null);
    });
  });
}
