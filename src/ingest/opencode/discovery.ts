import * as fs from 'fs';
import * as path from 'path';
import { loadedSqlJs, loadSqlJs } from '../../store/sqljs';
import { opencode } from './opencode';
import { openOpencodeDb, projectsOf, recordsOf, sessionsOf, sessionsWithMessagesOf } from './opencodeDb';
import { readOpencodeStorageMessages, readOpencodeStorageSessions } from './opencodeFiles';
import { mapOpencode } from './opencodeMapping';
import type { OcProject, OcSession, OpencodeData } from './opencodeRecords';
import { promptLine, type AgentDiscovery, type DiscoveredSession } from '../agentDiscovery';
import { listDir } from '../sourceFiles';

/**
 * opencode's sessions of a workspace. opencode keeps every project's sessions in one source, its
 * database (`~/.local/share/opencode/opencode.db`) or, before 1.2, its `storage/` folder, and an
 * ingest reads a source whole. So a source is listed once, as the one thing an import can take,
 * when it holds a session of this workspace: by the newest such session's title (or first
 * prompt), with how many more there are. Listing each session would offer a choice the import
 * cannot make (picking one imports them all). The storage folder is listed only without a
 * database: opencode 1.2 copied it into the database and no longer writes it.
 */

/** Where opencode keeps its data: `$XDG_DATA_HOME/opencode`, XDG's default under the home folder. */
export const opencodeDataDir = (home: string): string => path.join(home, '.local', 'share', 'opencode');

const DB_FILE = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/;
/** A source found not to hold the workspace's sessions is looked at again this long after at the soonest. */
const RECHECK_MS = 2000;

const inside = (dir: string, workspace: string): boolean => {
  const rel = path.relative(workspace, path.resolve(dir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The top-level sessions opencode ran in the workspace (or a folder in it), newest first: a
 * subagent's session is part of its parent's. Without the folder, the project's worktree decides
 * (opencode's `global` project, of folders outside git, has `/`).
 */
function workspaceSessions(sessions: readonly OcSession[], projects: readonly OcProject[], workspace: string): OcSession[] {
  const worktrees = new Map(projects.map((p) => [p.id, p.worktree]));
  const ws = path.resolve(workspace);
  return sessions
    .filter((s) => {
      if (s.parentId !== undefined) return false;
      const worktree = s.projectId === undefined ? undefined : worktrees.get(s.projectId);
      const dir = s.directory ?? (worktree !== '/' ? worktree : undefined);
      return dir !== undefined && inside(dir, ws);
    })
    .sort((a, b) => (b.updated ?? b.created ?? 0) - (a.updated ?? a.created ?? 0));
}

/** sql.js when it is loaded; else null, and its loading begins (discovery is synchronous, the load is not). */
function sqlJsIfLoaded(): ReturnType<typeof loadedSqlJs> | null {
  try {
    return loadedSqlJs();
  } catch {
    loadSqlJs().catch(() => undefined);
    return null;
  }
}

interface SourceIndex {
  /** The sessions with a message: opencode may have made one that nothing was asked in yet. */
  sessions: OcSession[];
  projects: OcProject[];
  /** One session's messages and parts, for its first prompt. */
  records(sessionId: string): Pick<OpencodeData, 'messages' | 'parts'>;
  close(): void;
}

/** A source's sessions, or null when it cannot be read now (sql.js not loaded yet, a damaged file). */
function indexOf(source: string): SourceIndex | null {
  try {
    if (path.basename(source) === 'storage') {
      const { sessions, projects } = readOpencodeStorageSessions(source);
      const asked = sessions.filter((s) => listDir(path.join(source, 'message', s.id)).length > 0);
      return { sessions: asked, projects, records: (id) => readOpencodeStorageMessages(source, id), close: () => undefined };
    }
    const SQL = sqlJsIfLoaded();
    if (SQL === null) return null;
    const db = openOpencodeDb(source, SQL);
    try {
      const asked = new Set(sessionsWithMessagesOf(db, source));
      const sessions = sessionsOf(db, source).filter((s) => asked.has(s.id));
      return { sessions, projects: projectsOf(db, source), records: (id) => recordsOf(db, source, {}, id), close: () => db.close() };
    } catch {
      db.close();
      return null;
    }
  } catch {
    return null;
  }
}

/** The sources under opencode's data folder: its databases, else its storage folder. */
function sourcesIn(dir: string): string[] {
  const dbs = listDir(dir)
    .filter((e) => e.isFile() && DB_FILE.test(e.name))
    .map((e) => path.join(dir, e.name));
  const storage = path.join(dir, 'storage');
  return dbs.length > 0 ? dbs : fs.existsSync(storage) ? [storage] : [];
}

function describe(source: string, workspace: string): DiscoveredSession | null {
  const index = indexOf(source);
  if (index === null) return null;
  try {
    const mine = workspaceSessions(index.sessions, index.projects, workspace);
    const newest = mine[0];
    if (newest === undefined) return null;
    const mapped = mapOpencode({ projects: index.projects, sessions: [newest], ...index.records(newest.id), skipped: {} }, source);
    const title = mapped.sessions[0]?.entries[0]?.payload.data as { title?: unknown } | undefined;
    const more = mine.length > 1 ? ` (and ${mine.length - 1} more session${mine.length > 2 ? 's' : ''} of this folder)` : '';
    return {
      format: 'opencode',
      file: source,
      firstPrompt: typeof title?.title === 'string' ? `${promptLine(title.title)}${more}` : more === '' ? null : more.trim(),
      modifiedAt: newest.updated ?? newest.created ?? 0,
    };
  } catch {
    return null;
  } finally {
    index.close();
  }
}

/** Whether a source held a session of the workspace when last looked at; a yes is kept (sessions stay). */
const holds = new Map<string, { yes: boolean; at: number }>();

function holdsWorkspace(source: string, workspace: string): boolean {
  const key = `${source}\0${path.resolve(workspace)}`;
  const known = holds.get(key);
  const now = Date.now();
  if (known?.yes === true) return true;
  if (known !== undefined && now - known.at < RECHECK_MS) return false;
  const index = indexOf(source);
  if (index === null) return false;
  try {
    const yes = workspaceSessions(index.sessions, index.projects, workspace).length > 0;
    holds.set(key, { yes, at: now });
    return yes;
  } finally {
    index.close();
  }
}

export const opencodeDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    return sourcesIn(opencodeDataDir(home)).flatMap((source) => describe(source, workspace) ?? []);
  },
  roots: ({ home }) => [opencodeDataDir(home)],
  sourceOf(file, { workspace, home }) {
    const dir = opencodeDataDir(home);
    const source = opencode.sourceOfPath(file);
    if (source === null || !(path.dirname(source) === dir || source === path.join(dir, 'storage'))) return null;
    if (path.basename(source) !== 'storage' && !DB_FILE.test(path.basename(source))) return null;
    return holdsWorkspace(source, workspace) ? source : null;
  },
};
