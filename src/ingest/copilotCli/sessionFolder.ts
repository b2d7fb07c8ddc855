import * as path from 'path';
import { readRegularFileIfExistsSync } from '../../store/safeRead';
import { cwdOfWorkspaceYaml } from './workspaceYaml';

/**
 * Where Copilot CLI keeps a session: `~/.copilot/session-state/<session id>/` (or under
 * `$COPILOT_HOME`), its log `events.jsonl` and `workspace.yaml` (the folder it ran in) side by
 * side. The log is the source; the folder's other files (checkpoints, file snapshots, the `sql`
 * tool's database) are not read.
 */

export const EVENTS_FILE = 'events.jsonl';
const WORKSPACE_FILE = 'workspace.yaml';
/** workspace.yaml is a handful of lines; a larger one is not read. */
const WORKSPACE_MAX_BYTES = 64 * 1024;

/** Copilot CLI's session ids are UUIDs. */
const SESSION_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const sessionStateDir = (home: string): string => path.join(home, '.copilot', 'session-state');

/** The session's log when `file` is a session folder's log or workspace.yaml, else null: from the path alone. */
export function sessionLogOf(file: string): string | null {
  const base = path.basename(file);
  if (base !== EVENTS_FILE && base !== WORKSPACE_FILE) return null;
  const folder = path.dirname(file);
  return SESSION_FOLDER.test(path.basename(folder)) ? path.join(folder, EVENTS_FILE) : null;
}

/** The id the session's folder is named by, when it is named by one. */
export function folderSessionIdOf(log: string): string | null {
  const name = path.basename(path.dirname(log));
  return SESSION_FOLDER.test(name) ? name : null;
}

/** The folder the session ran in as its workspace.yaml says, when it can be read. */
export function workspaceCwdOf(log: string): string | undefined {
  try {
    const bytes = readRegularFileIfExistsSync(path.join(path.dirname(log), WORKSPACE_FILE), WORKSPACE_MAX_BYTES, 'a Copilot CLI workspace.yaml');
    return bytes === null ? undefined : cwdOfWorkspaceYaml(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
