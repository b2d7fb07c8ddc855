import * as fs from 'fs';
import * as path from 'path';
import type { AgentDiscovery, DiscoveredSession } from '../agentDiscovery';
import { readJsonlHead, isJsonRecord, type JsonRecord } from '../jsonlHead';
import { listDir } from '../sourceFiles';
import { firstPromptOf } from './firstPrompt';

/** Codex keeps every workspace's rollouts in one tree; only the newest are opened to read their cwd. */
const CODEX_CANDIDATES = 500;
/** `sessions/YYYY/MM/DD/rollout-….jsonl`: a walk deeper than that is not Codex's tree. */
const TREE_DEPTH = 4;
const ROLLOUT = /^rollout-.*\.jsonl$/;

const codexDir = (home: string): string => path.join(home, '.codex', 'sessions');

/** The rollout files under `dir`, its date folders walked (not their symbolic links). */
function rolloutsUnder(dir: string, depth = 0): string[] {
  if (depth >= TREE_DEPTH) return [];
  return listDir(dir).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return rolloutsUnder(p, depth + 1);
    return e.isFile() && ROLLOUT.test(e.name) ? [p] : [];
  });
}

function cwdIs(lines: readonly JsonRecord[], workspace: string): boolean {
  const meta = lines.find((r) => r.type === 'session_meta' && isJsonRecord(r.payload));
  const cwd = meta && isJsonRecord(meta.payload) ? meta.payload.cwd : undefined;
  return typeof cwd === 'string' && path.resolve(cwd) === workspace;
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Codex rollouts whose `session_meta` names the workspace as its `cwd`. */
export const codexDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    const rollouts = rolloutsUnder(codexDir(home))
      .map((file) => ({ file, modifiedAt: mtimeOf(file) }))
      .sort((a, b) => b.modifiedAt - a.modifiedAt)
      .slice(0, CODEX_CANDIDATES);
    const found: DiscoveredSession[] = [];
    for (const { file } of rollouts) {
      const head = readJsonlHead(file);
      if (head !== null && cwdIs(head.lines, path.resolve(workspace)))
        found.push({ format: 'codex', file, firstPrompt: firstPromptOf(head.lines), modifiedAt: head.modifiedAt });
    }
    return found;
  },
  roots: ({ home }) => [codexDir(home)],
  sourceOf(file, { workspace }) {
    if (!file.endsWith('.jsonl')) return null;
    const head = readJsonlHead(file);
    return head !== null && cwdIs(head.lines, path.resolve(workspace)) ? file : null;
  },
};
