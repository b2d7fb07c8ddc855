import * as path from 'path';
import { isJsonRecord, readJsonlHead, type JsonRecord } from '../jsonlHead';
import { listDir } from '../sourceFiles';
import { preferredTranscript } from '../transcriptFiles';

/**
 * Codex's rollout files: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, compressed to
 * `.jsonl.zst` once idle for a week (0.16x; the plain one is read where both are). A
 * multi_agent_v2 subagent writes a rollout of its own whose session_meta names its parent thread.
 */

/** A rollout's name, with the time it started. */
const ROLLOUT = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-.*\.jsonl(?:\.zst)?$/;
const THREAD = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i;

/** Whether a file name is a rollout's, plain or compressed. */
export const isRolloutName = (name: string): boolean => /^rollout-.*\.jsonl(?:\.zst)?$/.test(name);

const metaOf = (lines: readonly JsonRecord[]): JsonRecord | undefined => {
  const meta = lines.find((r) => r.type === 'session_meta' && isJsonRecord(r.payload));
  return meta && isJsonRecord(meta.payload) ? meta.payload : undefined;
};

/** The thread a rollout's session_meta names as its parent (a subagent's), or null. */
export function parentThreadOf(lines: readonly JsonRecord[]): string | null {
  const parent = metaOf(lines)?.parent_thread_id;
  return typeof parent === 'string' && parent !== '' ? parent : null;
}

// A rollout's first line never changes: its parent is read once per file, a few thousand kept.
const PARENTS_KEPT = 4096;
const parents = new Map<string, string | null>();
function cachedParentOf(file: string): string | null {
  if (parents.has(file)) return parents.get(file) ?? null;
  const head = readJsonlHead(file);
  // One without its session_meta yet (being created, or unreadable) is asked again next time.
  if (head === null || metaOf(head.lines) === undefined) return null;
  const parent = parentThreadOf(head.lines);
  if (parents.size >= PARENTS_KEPT) parents.delete(parents.keys().next().value as string);
  parents.set(file, parent);
  return parent;
}

/** The folder of the day after a `YYYY/MM/DD` folder's, or null for another folder. */
function nextDayDir(dir: string): string | null {
  const [y, m, d] = dir.split(path.sep).slice(-3).map(Number);
  if (![y, m, d].every(Number.isInteger)) return null;
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return path.join(dir, '..', '..', '..', String(next.getUTCFullYear()), pad(next.getUTCMonth() + 1), pad(next.getUTCDate()));
}

/**
 * The rollouts of the subagents a rollout spawned (each child's session_meta names its parent
 * thread): those started no earlier than it, in its day's folder or the next one's.
 */
function childRolloutsOf(file: string): string[] {
  const name = path.basename(file);
  const started = ROLLOUT.exec(name)?.[1];
  const thread = THREAD.exec(name)?.[1];
  if (started === undefined || thread === undefined) return [];
  const dir = path.dirname(file);
  const next = nextDayDir(dir);
  const children: string[] = [];
  for (const d of next === null ? [dir] : [dir, next])
    for (const e of listDir(d)) {
      const time = ROLLOUT.exec(e.name)?.[1];
      const f = path.join(d, e.name);
      if (time === undefined || time < started || !e.isFile() || f === file || preferredTranscript(f) === null) continue;
      if (cachedParentOf(f) === thread) children.push(f);
    }
  return children;
}

/** How many subagent rollouts are read with a session: a tree past this is cut, not walked forever. */
const MAX_DESCENDANTS = 256;

/**
 * The rollouts of a rollout's subagents, theirs, and so on, read with it (its companions) so that
 * each link freezes the child it names as the tape has it.
 */
export function subagentRolloutsOf(file: string): string[] {
  const found: string[] = [];
  const seen = new Set([file]);
  for (let i = -1; i < found.length && found.length < MAX_DESCENDANTS; i++)
    for (const child of childRolloutsOf(i < 0 ? file : found[i]))
      if (!seen.has(child) && found.length < MAX_DESCENDANTS) {
        seen.add(child);
        found.push(child);
      }
  return found;
}
