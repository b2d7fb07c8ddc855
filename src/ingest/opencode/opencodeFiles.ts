import type * as fs from 'fs';
import * as path from 'path';
import * as z from 'zod';
import { TapeFileError } from '../../store/errors';
import { countSkip } from '../format';
import { listDir, readSourceJson } from '../sourceFiles';
import type { OcMessage, OcPart, OcProject, OcSession, OpencodeData } from './opencodeRecords';

/**
 * opencode's storage before its database (1.1 and earlier; packages/opencode/src/storage/storage.ts):
 * one JSON file per record under `~/.local/share/opencode/storage/`: `project/<project>.json`,
 * `session/<project>/<session>.json`, `message/<session>/<message>.json` and
 * `part/<message>/<part>.json`. Ids come from the paths, as opencode's own migration to the
 * database takes them (packages/opencode/src/storage/json-migration.ts). A file that cannot be read
 * (caught while opencode rewrites it, say) is counted and the others are read; the next run reads
 * it again.
 */

/** A storage folder with more files than this is read only this far: a folder walk stays bounded. */
const MAX_FILES = 1_000_000;

const projectFile = z.looseObject({ worktree: z.string().optional() });
const sessionFile = z.looseObject({
  parentID: z.string().optional(),
  directory: z.string().optional(),
  title: z.string().optional(),
  time: z.looseObject({ created: z.number().optional(), updated: z.number().optional() }).optional(),
});

const idOf = (name: string): string | null => (name.endsWith('.json') ? name.slice(0, -'.json'.length) : null);

class StorageReader {
  readonly skipped: Record<string, number> = {};
  private read = 0;

  constructor(readonly dir: string) {}

  /** The records of one folder (`message/<session>`, say): id and JSON of each readable file, by name. */
  records(kind: string, ...sub: string[]): { id: string; data: unknown }[] {
    const out: { id: string; data: unknown }[] = [];
    for (const e of listDir(path.join(this.dir, kind, ...sub))) {
      const id = idOf(e.name);
      if (!e.isFile() || id === null) continue;
      if (++this.read > MAX_FILES) {
        countSkip(this.skipped, 'storage/over-limit');
        continue;
      }
      try {
        out.push({ id, data: readSourceJson(path.join(this.dir, kind, ...sub, e.name)) });
      } catch (err) {
        if (!(err instanceof TapeFileError)) throw err;
        countSkip(this.skipped, `unreadable/${kind}`);
      }
    }
    return out;
  }

  /** The names of the folders in `kind` (one per project, session or message). */
  folders(kind: string): string[] {
    return listDir(path.join(this.dir, kind))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  }
}

/**
 * Whether a folder's entries are laid out as a storage folder (its `session` and `message`
 * folders): a copy of one keeps the layout, not the path.
 */
export const isStorageLayout = (entries: readonly fs.Dirent[]): boolean =>
  ['session', 'message'].every((name) => entries.some((e) => e.isDirectory() && e.name === name));

function reader(dir: string): StorageReader {
  if (!listDir(dir).some((e) => e.isDirectory() && e.name === 'session')) throw new TapeFileError(dir, 'is not an opencode storage folder (no session folder)');
  return new StorageReader(dir);
}

function projectsAndSessions(r: StorageReader): { projects: OcProject[]; sessions: OcSession[] } {
  const projects = r.records('project').map(({ id, data }) => ({ id, worktree: projectFile.safeParse(data).data?.worktree }));
  const sessions: OcSession[] = [];
  for (const projectId of r.folders('session'))
    for (const { id, data } of r.records('session', projectId)) {
      const s = sessionFile.safeParse(data);
      if (!s.success) {
        countSkip(r.skipped, 'invalid/session');
        continue;
      }
      const { parentID, directory, title, time } = s.data;
      sessions.push({ id, projectId, parentId: parentID, directory, title, created: time?.created, updated: time?.updated });
    }
  return { projects, sessions: sessions.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
}

/** The projects and sessions of a storage folder, without their messages: what a list shows. */
export function readOpencodeStorageSessions(dir: string): Pick<OpencodeData, 'projects' | 'sessions'> {
  return projectsAndSessions(reader(dir));
}

/** The messages of one session and their parts (a list's first prompt), as readOpencodeStorage reads them. */
export function readOpencodeStorageMessages(dir: string, sessionId: string): Pick<OpencodeData, 'messages' | 'parts'> {
  const r = reader(dir);
  const messages: OcMessage[] = r.records('message', sessionId).map(({ id, data }) => ({ id, sessionId, data }));
  const parts: OcPart[] = messages.flatMap((m) => r.records('part', m.id).map(({ id, data }) => ({ id, messageId: m.id, data })));
  return { messages, parts };
}

/** Everything a storage folder holds now: the messages of its sessions and their parts. */
export function readOpencodeStorage(dir: string): OpencodeData {
  const r = reader(dir);
  const { projects, sessions } = projectsAndSessions(r);
  const messages: OcMessage[] = [];
  const parts: OcPart[] = [];
  for (const s of sessions)
    for (const { id, data } of r.records('message', s.id)) {
      messages.push({ id, sessionId: s.id, data });
      for (const p of r.records('part', id)) parts.push({ id: p.id, messageId: id, data: p.data });
    }
  return { projects, sessions, messages, parts, skipped: r.skipped };
}
