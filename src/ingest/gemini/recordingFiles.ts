import * as fs from 'fs';
import * as path from 'path';
import { listDir } from '../sourceFiles';

/**
 * Where Gemini CLI writes a project's chat recordings: `~/.gemini/tmp/<project>/chats/`, a session
 * as `session-<YYYY-MM-DDTHH-mm>-<first 8 characters of its id>.json` (`.jsonl` from v0.39; a
 * `.json` session resumed by v0.39+ goes on in `<same name>.jsonl`, the `.json` left as it was).
 * From v0.37 a subagent's recording is `chats/<parent session id>/<agent id>.json(l)`; v0.31 to
 * v0.36 wrote it beside its parent's as a session file of its own, with the parent's session id and
 * `kind: 'subagent'`.
 */

/** A session file's name, with the start of the session id it ends with. */
const SESSION_FILE = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([A-Za-z0-9_-]{1,8})\.jsonl?$/;
const RECORDING_FILE = /\.jsonl?$/;

/** A session id as Gemini CLI puts it in a file or folder name (`sanitizeFilenamePart`). */
export const fileNamePartOf = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_');

export interface RecordingPlace {
  /** `~/.gemini/tmp/<project>`. */
  projectDir: string;
  chatsDir: string;
  /** The folder a subagent's recording is in: its parent session's id. Null for a session's own file. */
  parentFolder: string | null;
}

/** A subagents' folder as Gemini CLI names it: its parent's session id, a UUID. */
const SESSION_FOLDER = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const isChatsDir = (dir: string): boolean =>
  path.basename(dir) === 'chats' &&
  path.basename(path.dirname(path.dirname(dir))) === 'tmp' &&
  path.basename(path.dirname(path.dirname(path.dirname(dir)))) === '.gemini';

/**
 * Where a file is in a chats folder, when it is a recording there: in Gemini CLI's tree, or in a
 * copy of a chats folder anywhere (a backup, a teammate's), known by the names Gemini CLI gives a
 * session file and a session's subagents' folder.
 */
export function recordingPlaceOf(file: string): RecordingPlace | null {
  const abs = path.resolve(file);
  if (!RECORDING_FILE.test(abs)) return null;
  const dir = path.dirname(abs);
  const up = path.dirname(dir);
  const session = { projectDir: up, chatsDir: dir, parentFolder: null };
  const subagent = { projectDir: path.dirname(up), chatsDir: up, parentFolder: path.basename(dir) };
  if (isChatsDir(dir)) return session;
  if (isChatsDir(up)) return subagent;
  if (SESSION_FILE.test(path.basename(abs))) return session;
  return SESSION_FOLDER.test(subagent.parentFolder) && parentRecordingOf(up, subagent.parentFolder) !== null ? subagent : null;
}

const isFile = (file: string): boolean => {
  try {
    return fs.lstatSync(file).isFile();
  } catch {
    return false;
  }
};

/** Whether a `.json` recording has gone on in its `.jsonl` successor (which holds all it had). */
export const hasSuccessor = (file: string): boolean => file.endsWith('.json') && isFile(`${file}l`);

/** The file that holds a recording's latest: its `.jsonl` successor, else itself. */
const latestOf = (file: string): string => (hasSuccessor(file) ? `${file}l` : file);

/** The recordings in a folder, successors standing for what they continue. */
function recordingsIn(dir: string): string[] {
  return listDir(dir)
    .filter((e) => e.isFile() && RECORDING_FILE.test(e.name))
    .map((e) => path.join(dir, e.name))
    .filter((f) => !hasSuccessor(f));
}

/** The session file a subagents' folder belongs to (its name ends with the folder's first 8 characters), the latest if several do. */
function parentRecordingOf(chatsDir: string, folder: string): string | null {
  const short = folder.slice(0, 8);
  const names = recordingsIn(chatsDir).filter((f) => SESSION_FILE.exec(path.basename(f))?.[1] === short);
  return names.filter((f) => f.endsWith('.jsonl')).at(-1) ?? names.at(-1) ?? null;
}

/**
 * The source a recording file is part of: a session's file stands for itself (or its successor), a
 * subagent's for its parent's session file, or for itself when that is gone.
 */
export function recordingSourceOf(file: string): string | null {
  const place = recordingPlaceOf(file);
  if (place === null) return null;
  const own = latestOf(path.resolve(file));
  return place.parentFolder === null ? own : (parentRecordingOf(place.chatsDir, place.parentFolder) ?? own);
}

/** A session's subagent recordings of v0.37+: the files in `chats/<session id>/`. */
export const nestedSubagentFilesOf = (chatsDir: string, sessionId: string): string[] => recordingsIn(path.join(chatsDir, fileNamePartOf(sessionId)));

/** The other session files in `chats` whose names end with the same start of the session id: v0.31–v0.36 subagents are among them. */
export function namesakeFilesOf(file: string, chatsDir: string, sessionId: string): string[] {
  const short = fileNamePartOf(sessionId).slice(0, 8);
  const own = path.resolve(file);
  return recordingsIn(chatsDir).filter((f) => f !== own && SESSION_FILE.exec(path.basename(f))?.[1] === short);
}
