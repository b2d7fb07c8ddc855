import * as fs from 'fs';
import * as path from 'path';
import { promptLine, type AgentDiscovery, type DiscoveredSession, type DiscoveryPlaces } from '../agentDiscovery';
import { cwdInJsonText } from './environmentDetails';
import { agentOfTaskFolder, API_HISTORY, EXTENSION_IDS, HISTORY_ITEM, readTaskHistory, taskFolderOfPath, UI_MESSAGES } from './taskFolder';
import { taskRecordOf } from './taskMetadata';
import { listDir, readSourceHead, readSourceJson } from '../sourceFiles';

/**
 * Cline's, Roo Code's and Kilo Code's tasks of this workspace: the folders of
 * `<globalStorage>/<extension id>/tasks/` (VS Code's globalStorage of this profile; without it,
 * where VS Code keeps it for the default profile) and of the Cline CLI's `~/.cline/data/tasks/`.
 * A task is the workspace's when the folder it ran in is the workspace: as Roo Code's
 * history_item.json, Cline's task history (`state/taskHistory.json`) or the first request's
 * environment details name it. The extensions' own state (VS Code's state.vscdb) is not read.
 */

/** Only the newest task folders are opened to tell their folder: a long-used extension has thousands. */
const TASK_CANDIDATES = 1000;
/** Task folders whose folder is known, remembered across calls (a followed task's file changes often). */
const CWD_CACHE_MAX = 4096;

/** VS Code's globalStorage of the default profile, where the platform keeps it. */
function defaultGlobalStorage(home: string): string {
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Code', 'User', 'globalStorage');
  if (process.platform === 'win32') return path.join(home, 'AppData', 'Roaming', 'Code', 'User', 'globalStorage');
  return path.join(home, '.config', 'Code', 'User', 'globalStorage');
}

const tasksRoots = ({ home, globalStorage }: DiscoveryPlaces): string[] => [
  ...Object.values(EXTENSION_IDS).map((id) => path.join(globalStorage ?? defaultGlobalStorage(home), id, 'tasks')),
  path.join(home, '.cline', 'data', 'tasks'),
];

const sameFolder = (a: string, b: string): boolean =>
  process.platform === 'win32' ? path.resolve(a).toLowerCase() === path.resolve(b).toLowerCase() : path.resolve(a) === path.resolve(b);

const cwdCache = new Map<string, string>();

function readJson(file: string): unknown {
  try {
    return fs.existsSync(file) ? readSourceJson(file) : undefined;
  } catch {
    return undefined;
  }
}

/** The folder a task ran in, or null when none of its files says. */
function cwdOfTask(dir: string, history: () => Map<string, unknown>): string | null {
  const cached = cwdCache.get(dir);
  if (cached !== undefined) return cached;
  const head = readSourceHead(path.join(dir, API_HISTORY));
  const cwd =
    (head === null ? null : cwdInJsonText(head.toString('utf8'))) ??
    taskRecordOf(readJson(path.join(dir, HISTORY_ITEM))).workspace ??
    taskRecordOf(history().get(path.basename(dir))).workspace ??
    null;
  if (cwd !== null) {
    if (cwdCache.size >= CWD_CACHE_MAX) cwdCache.delete(cwdCache.keys().next().value as string);
    cwdCache.set(dir, cwd);
  }
  return cwd;
}

// How the extensions write a task's first words: the chat's first message (Cline's `say: task`, Roo
// Code's `say: text`), the history's `<task>` (later `<user_message>`) block.
const UI_TASK = /^\s*\[\s*\{\s*"ts"\s*:\s*\d+\s*,\s*"type"\s*:\s*"say"\s*,\s*"say"\s*:\s*"(?:task|text)"\s*,\s*"text"\s*:\s*"((?:[^"\\]|\\.)*)"/;
const API_TASK = /"text"\s*:\s*"<(?:task|user_message)>(?:\\n)?((?:[^"\\]|\\.)*?)(?:\\n)?<\/(?:task|user_message)>"/;

function jsonString(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    const text = JSON.parse(`"${raw}"`) as unknown;
    return typeof text === 'string' && text.trim() !== '' ? text : null;
  } catch {
    return null;
  }
}

/** The task's first prompt, from the head of its chat or history. */
function firstPromptOf(dir: string): string | null {
  const ui = readSourceHead(path.join(dir, UI_MESSAGES))?.toString('utf8');
  const api = readSourceHead(path.join(dir, API_HISTORY))?.toString('utf8');
  const text = jsonString(ui === undefined ? undefined : UI_TASK.exec(ui)?.[1]) ?? jsonString(api === undefined ? undefined : API_TASK.exec(api)?.[1]);
  return text === null ? null : promptLine(text);
}

function modifiedAtOf(dir: string): number {
  let latest = 0;
  for (const name of [API_HISTORY, UI_MESSAGES]) {
    try {
      latest = Math.max(latest, fs.statSync(path.join(dir, name)).mtimeMs);
    } catch {
      // A task may hold only one of the two.
    }
  }
  return latest;
}

export const clineDiscovery: AgentDiscovery = {
  discover(places) {
    const found: DiscoveredSession[] = [];
    for (const root of tasksRoots(places)) {
      let history: Map<string, unknown> | undefined;
      const tasks = listDir(root)
        .filter((e) => e.isDirectory())
        .map((e) => path.join(root, e.name))
        .filter((dir) => taskFolderOfPath(dir) === dir)
        .map((dir) => ({ dir, modifiedAt: modifiedAtOf(dir) }))
        .sort((a, b) => b.modifiedAt - a.modifiedAt)
        .slice(0, TASK_CANDIDATES);
      for (const { dir, modifiedAt } of tasks) {
        const cwd = cwdOfTask(dir, () => (history ??= readTaskHistory(root)));
        if (cwd !== null && sameFolder(cwd, places.workspace))
          found.push({ format: agentOfTaskFolder(dir), file: dir, firstPrompt: firstPromptOf(dir), modifiedAt });
      }
    }
    return found.sort((a, b) => b.modifiedAt - a.modifiedAt);
  },
  roots: tasksRoots,
  sourceOf(file, places) {
    const dir = taskFolderOfPath(file);
    if (dir === null || !tasksRoots(places).some((root) => sameFolder(path.dirname(dir), root))) return null;
    const cwd = cwdOfTask(dir, () => readTaskHistory(path.dirname(dir)));
    return cwd !== null && sameFolder(cwd, places.workspace) ? dir : null;
  },
};
