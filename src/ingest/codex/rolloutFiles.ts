import * as fs from 'fs';
import * as path from 'path';
import { openRegularSync, readUpToSync } from '../../store/safeRead';
import { listDir } from '../sourceFiles';
import { parseTranscript, TRANSCRIPT_MAX_BYTES } from '../transcriptLines';
import { readZstdFileSync } from '../zstdFile';

/**
 * Codex's rollout files: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, compressed to
 * `.jsonl.zst` once idle for a week (Codex 0.16x). Where both are there (Codex writes the
 * compressed one, then removes the plain one), the plain file is the session: one, not two.
 */

/** A rollout's name, with the time it started. */
const ROLLOUT = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-.*\.jsonl(?:\.zst)?$/;
export const ZST = '.zst';

/** Whether a file name is a rollout's, plain or compressed. */
export const isRolloutName = (name: string): boolean => /^rollout-.*\.jsonl(?:\.zst)?$/.test(name);

/** The rollout a file is read as: itself, or null for a compressed one whose plain file is beside it. */
export const preferredRollout = (file: string): string | null => (file.endsWith(`.jsonl${ZST}`) && fs.existsSync(file.slice(0, -ZST.length)) ? null : file);

/** Only the head of a rollout is read to describe it: its session_meta and first prompt come early. */
const HEAD_BYTES = 256 * 1024;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The records on the complete lines of a rollout's first HEAD_BYTES (a compressed one decompressed,
 * bounded as a transcript read is), and its mtime; null when it cannot be read.
 */
export function rolloutHead(file: string): { lines: Json[]; modifiedAt: number } | null {
  try {
    const { fd, stat } = openRegularSync(file);
    let head: Buffer;
    try {
      head = file.endsWith(ZST) ? Buffer.alloc(0) : readUpToSync(fd, stat.size, HEAD_BYTES);
    } finally {
      fs.closeSync(fd);
    }
    if (file.endsWith(ZST)) head = readZstdFileSync(file, TRANSCRIPT_MAX_BYTES, 'a transcript').subarray(0, HEAD_BYTES);
    // A line cut at HEAD_BYTES is torn, so left out; describing the file does not need it.
    return {
      lines: parseTranscript(head)
        .lines.map((l) => l.record)
        .filter(isObject),
      modifiedAt: stat.mtimeMs,
    };
  } catch {
    return null;
  }
}

/** The thread a rollout's session_meta names as its parent (a subagent's), or null. */
export function parentThreadOf(lines: readonly Json[]): string | null {
  const meta = lines.find((r) => r.type === 'session_meta' && isObject(r.payload));
  const parent = meta && isObject(meta.payload) ? meta.payload.parent_thread_id : undefined;
  return typeof parent === 'string' && parent !== '' ? parent : null;
}

// A rollout's first line never changes: its parent is read once per file, a few thousand kept.
const PARENTS_KEPT = 4096;
const parents = new Map<string, string | null>();
function cachedParentOf(file: string): string | null {
  if (parents.has(file)) return parents.get(file) ?? null;
  const head = rolloutHead(file);
  const parent = head === null ? null : parentThreadOf(head.lines);
  // One that cannot be read yet (being created) is asked again next time.
  if (head !== null) {
    if (parents.size >= PARENTS_KEPT) parents.delete(parents.keys().next().value as string);
    parents.set(file, parent);
  }
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
 * The rollouts of the subagents a rollout spawned (multi_agent_v2: each child's session_meta names
 * its parent thread): those started no earlier than it, in its day's folder or the next one's.
 */
export function childRolloutsOf(file: string): string[] {
  const name = path.basename(file);
  const started = ROLLOUT.exec(name)?.[1];
  const thread = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i.exec(name)?.[1];
  if (started === undefined || thread === undefined) return [];
  const dir = path.dirname(file);
  const next = nextDayDir(dir);
  const children: string[] = [];
  for (const d of next === null ? [dir] : [dir, next])
    for (const e of listDir(d)) {
      const time = ROLLOUT.exec(e.name)?.[1];
      const f = path.join(d, e.name);
      if (time === undefined || time < started || !e.isFile() || f === file || preferredRollout(f) === null) continue;
      if (cachedParentOf(f) === thread) children.push(f);
    }
  return children;
}

/** How many subagent rollouts are read with a session: a tree past this is cut, not walked forever. */
const MAX_DESCENDANTS = 256;

/**
 * The rollouts of a rollout's subagents, theirs, and so on (childRolloutsOf), read with it so that
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
