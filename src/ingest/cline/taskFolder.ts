import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../store/errors';
import { countSkip, type FormatName } from '../format';
import { readSourceJson } from '../sourceFiles';

/**
 * A Cline, Roo Code or Kilo Code task: the folder `globalStorage/<extension id>/tasks/<task id>/`
 * (the Cline CLI's, and Cline 4's, `~/.cline/data/tasks/<task id>/`) with the task's files, each
 * rewritten whole by the extension. Either of the two main files may be missing (a task that
 * never reached its first request has no API history; an older copy may hold only the history).
 */

export type ClineAgent = Extract<FormatName, 'cline' | 'roo' | 'kilo'>;

/** The VS Code extension ids, as VS Code names their global storage folders (lower case). */
export const EXTENSION_IDS: Readonly<Record<ClineAgent, string>> = {
  cline: 'saoudrizwan.claude-dev',
  roo: 'rooveterinaryinc.roo-cline',
  kilo: 'kilocode.kilo-code',
};

/** The messages as the model saw them (Anthropic message params with the agent's own fields). */
export const API_HISTORY = 'api_conversation_history.json';
/** The chat as the extension showed it: `say` and `ask` messages, the requests' figures among them. */
export const UI_MESSAGES = 'ui_messages.json';
/** Files in context, and in Cline the models used (`model_usage`). */
export const TASK_METADATA = 'task_metadata.json';
/** Roo Code 3.49+ (and Kilo Code where the same): the task's history item, with its workspace and parent and child tasks. */
export const HISTORY_ITEM = 'history_item.json';

const TASKS_DIR = 'tasks';

const isTaskFolderPath = (dir: string): boolean => path.basename(path.dirname(dir)) === TASKS_DIR;

/** The agent of a task folder, told by the folder holding `tasks`: an unknown one (a copy, the Cline CLI's `data`) is Cline's. */
export function agentOfTaskFolder(dir: string): ClineAgent {
  const owner = path.basename(path.dirname(path.dirname(dir))).toLowerCase();
  for (const [agent, id] of Object.entries(EXTENSION_IDS) as [ClineAgent, string][]) if (owner === id) return agent;
  return 'cline';
}

const holdsTaskFile = (dir: string): boolean => fs.existsSync(path.join(dir, API_HISTORY)) || fs.existsSync(path.join(dir, UI_MESSAGES));

/**
 * The task folder `file` stands for: the folder of an `api_conversation_history.json` or
 * `ui_messages.json` anywhere (names no other program writes), of a `task_metadata.json` or
 * `history_item.json` inside `tasks/<id>/`, or a `tasks/<id>` folder itself when it holds one of
 * the two main files or sits in an agent's known storage; else null.
 */
export function taskFolderOfPath(file: string): string | null {
  const name = path.basename(file);
  const dir = path.dirname(file);
  if (name === API_HISTORY || name === UI_MESSAGES) return dir;
  if ((name === TASK_METADATA || name === HISTORY_ITEM) && isTaskFolderPath(dir)) return dir;
  if (!isTaskFolderPath(file)) return null;
  try {
    if (!fs.statSync(file).isDirectory()) return null;
  } catch {
    return null;
  }
  const owner = path.basename(path.dirname(path.dirname(file))).toLowerCase();
  return Object.values(EXTENSION_IDS).includes(owner) || holdsTaskFile(file) ? file : null;
}

/** What a task's files hold now; a file that is not there is undefined. */
export interface TaskFiles {
  /** The task folder, or the one file read when the source is a lone file under another name. */
  source: string;
  /** Whether `source` is a task folder (else a lone file, with no side files or subtasks beside it). */
  folder: boolean;
  taskId: string;
  api?: unknown[];
  ui?: unknown[];
  metadata?: unknown;
  historyItem?: unknown;
  /** When ui_messages.json was last written (ms), when there is one. */
  uiModifiedAt?: number;
}

function readList(file: string): unknown[] {
  const value = readSourceJson(file);
  if (!Array.isArray(value)) throw new TapeFileError(file, 'is not a task file of Cline, Roo Code or Kilo Code: it holds no list of messages');
  return value;
}

/** A companion file that only adds to the task: one that cannot be read is counted, not fatal. */
function readCompanion(file: string, skipped: Record<string, number>): unknown {
  if (!fs.existsSync(file)) return undefined;
  try {
    return readSourceJson(file);
  } catch (e) {
    if (!(e instanceof TapeFileError)) throw e;
    countSkip(skipped, `unreadable/${path.basename(file)}`);
    return undefined;
  }
}

const mtimeOf = (file: string): number | undefined => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

/** Whether a list's first message is a UI message (`ts` and `type` ask/say) rather than an API one (`role`). */
function isUiList(list: readonly unknown[]): boolean {
  const first = list.find((m) => typeof m === 'object' && m !== null) as { type?: unknown; role?: unknown } | undefined;
  return first !== undefined && (first.type === 'say' || first.type === 'ask') && first.role === undefined;
}

/**
 * The files of the task `source` names: a task folder, one of its files (standing for the
 * folder), or a lone copy of one under another name (read as what it holds). A main file that
 * cannot be read, and a folder holding neither, is a TapeFileError naming it.
 */
export function readTaskFiles(source: string, skipped: Record<string, number>): TaskFiles {
  let dir = source;
  let isDir: boolean;
  try {
    isDir = fs.statSync(source).isDirectory();
  } catch {
    throw new TapeFileError(source, 'does not exist');
  }
  if (!isDir) {
    const name = path.basename(source);
    if (name !== API_HISTORY && name !== UI_MESSAGES && name !== TASK_METADATA && name !== HISTORY_ITEM) {
      const list = readList(source);
      const taskId = path.basename(source, path.extname(source));
      return isUiList(list) ? { source, folder: false, taskId, ui: list, uiModifiedAt: mtimeOf(source) } : { source, folder: false, taskId, api: list };
    }
    dir = path.dirname(source);
  }
  const apiFile = path.join(dir, API_HISTORY);
  const uiFile = path.join(dir, UI_MESSAGES);
  const hasApi = fs.existsSync(apiFile);
  const hasUi = fs.existsSync(uiFile);
  if (!hasApi && !hasUi) throw new TapeFileError(dir, `holds neither ${API_HISTORY} nor ${UI_MESSAGES}: it is not a task of Cline, Roo Code or Kilo Code`);
  return {
    source: dir,
    folder: true,
    taskId: path.basename(dir),
    ...(hasApi ? { api: readList(apiFile) } : {}),
    ...(hasUi ? { ui: readList(uiFile), uiModifiedAt: mtimeOf(uiFile) } : {}),
    metadata: readCompanion(path.join(dir, TASK_METADATA), skipped),
    historyItem: readCompanion(path.join(dir, HISTORY_ITEM), skipped),
  };
}

const historyEntry = (v: unknown): v is { id: string } => typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';

/**
 * Cline's task history (`state/taskHistory.json` beside `tasks/`, Cline 3.2x+), by task id: its
 * items name the folder a task began in (`cwdOnTaskInitialization`). Empty when there is none
 * that can be read.
 */
export function readTaskHistory(tasksDir: string): Map<string, unknown> {
  const file = path.join(path.dirname(tasksDir), 'state', 'taskHistory.json');
  try {
    const list = fs.existsSync(file) ? readSourceJson(file) : [];
    return new Map((Array.isArray(list) ? list : []).filter(historyEntry).map((h) => [h.id, h]));
  } catch {
    return new Map();
  }
}
