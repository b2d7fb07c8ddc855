import * as fs from 'fs';
import * as path from 'path';
import { openRegularSync, readUpToSync, type RegularFd } from '../store/safeRead';
import { promptLine, type AgentDiscovery, type DiscoveredSession, type DiscoveryPlaces } from './agentDiscovery';
import { clineDiscovery } from './clineDiscovery';
import { geminiDiscovery } from './geminiDiscovery';
import { parseTranscript } from './transcriptLines';
import { listDir } from './sourceFiles';
import { sourcesUnder } from './sourcesUnder';
import { opencodeDiscovery } from './opencodeDiscovery';
import { ownerTranscriptOf } from './transcriptFiles';
import { vscodeChatDiscovery } from './vscodeChatDiscovery';

export { promptLine, type AgentDiscovery, type DiscoveredSession, type DiscoveryPlaces } from './agentDiscovery';

/** Only the head of a transcript is read to describe it: the first prompt comes early. */
const HEAD_BYTES = 256 * 1024;
/** Codex keeps every workspace's rollouts in one tree; only the newest are opened to read their cwd. */
const CODEX_CANDIDATES = 500;

/**
 * Where Claude Code keeps a workspace's transcripts: `~/.claude/projects/` and the workspace path
 * with every character other than a letter, digit or `-` written as `-` (`/home/me/my.app` ->
 * `-home-me-my-app`).
 */
export function claudeCodeProjectDir(home: string, workspacePath: string): string {
  return path.join(home, '.claude', 'projects', path.resolve(workspacePath).replace(/[^A-Za-z0-9-]/g, '-'));
}

/** Claude Code's transcripts in the workspace's project folder; subagent files are part of their parent's session and not listed. */
export const claudeCodeDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    const found: DiscoveredSession[] = [];
    const projectDir = claudeCodeProjectDir(home, workspace);
    for (const e of listDir(projectDir)) {
      if (!e.name.endsWith('.jsonl')) continue;
      const file = path.join(projectDir, e.name);
      const head = readJsonlHead(file);
      if (head !== null) found.push({ format: 'claude-code', file, firstPrompt: firstClaudePrompt(head.lines), modifiedAt: head.modifiedAt });
    }
    return found;
  },
  roots: ({ workspace, home }) => [claudeCodeProjectDir(home, workspace)],
  sourceOf(file, { workspace, home }) {
    const project = claudeCodeProjectDir(home, workspace);
    const rel = path.relative(project, file);
    if (!file.endsWith('.jsonl') || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    const owner = ownerTranscriptOf(file);
    return path.dirname(owner) === project ? owner : null;
  },
};

const codexDir = (home: string): string => path.join(home, '.codex', 'sessions');

/** Codex rollouts whose `session_meta` names the workspace as its `cwd`. */
export const codexDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    const dir = codexDir(home);
    const rollouts = (fs.existsSync(dir) ? sourcesUnder(dir) : [])
      .filter((f) => /rollout-.*\.jsonl$/.test(f))
      .map((file) => ({ file, modifiedAt: mtimeOf(file) }))
      .sort((a, b) => b.modifiedAt - a.modifiedAt)
      .slice(0, CODEX_CANDIDATES);
    const found: DiscoveredSession[] = [];
    for (const { file } of rollouts) {
      const head = readJsonlHead(file);
      if (head !== null && codexCwdIs(head.lines, path.resolve(workspace)))
        found.push({ format: 'codex', file, firstPrompt: firstCodexPrompt(head.lines), modifiedAt: head.modifiedAt });
    }
    return found;
  },
  roots: ({ home }) => [codexDir(home)],
  sourceOf(file, { workspace }) {
    if (!file.endsWith('.jsonl')) return null;
    const head = readJsonlHead(file);
    return head !== null && codexCwdIs(head.lines, path.resolve(workspace)) ? file : null;
  },
};

/** Every agent whose sessions are looked for. */
export const AGENT_DISCOVERIES: readonly AgentDiscovery[] = [
  claudeCodeDiscovery,
  codexDiscovery,
  vscodeChatDiscovery,
  opencodeDiscovery,
  geminiDiscovery,
  clineDiscovery,
];

/** Every agent's sessions of a workspace, newest first. */
export function discoverSessions(places: DiscoveryPlaces): DiscoveredSession[] {
  return AGENT_DISCOVERIES.flatMap((d) => d.discover(places)).sort((a, b) => b.modifiedAt - a.modifiedAt);
}

/** The folders to watch to follow every agent's sessions of a workspace. */
export const discoveryRoots = (places: DiscoveryPlaces): string[] => [...new Set(AGENT_DISCOVERIES.flatMap((d) => d.roots(places)))];

/** The source to ingest when `file` changed, if it is one of the workspace's sessions (of any agent). */
export function workspaceSourceOf(file: string, places: DiscoveryPlaces): string | null {
  for (const d of AGENT_DISCOVERIES) {
    const source = d.sourceOf(file, places);
    if (source !== null) return source;
  }
  return null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function firstClaudePrompt(lines: readonly Json[]): string | null {
  for (const r of lines) {
    if (r.type !== 'user' || r.isMeta === true || r.isCompactSummary === true || !isObject(r.message)) continue;
    const content = r.message.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content
              .filter(isObject)
              .filter((b) => b.type === 'text')
              .map((b) => String(b.text))
              .join(' ')
          : '';
    // Slash commands and hook output arrive as user records wrapped in tags; they are not prompts.
    if (text.trim() !== '' && !text.trimStart().startsWith('<')) return promptLine(text);
  }
  return null;
}

function codexCwdIs(lines: readonly Json[], workspace: string): boolean {
  const meta = lines.find((r) => r.type === 'session_meta' && isObject(r.payload));
  const cwd = meta && isObject(meta.payload) ? meta.payload.cwd : undefined;
  return typeof cwd === 'string' && path.resolve(cwd) === workspace;
}

function firstCodexPrompt(lines: readonly Json[]): string | null {
  for (const r of lines) {
    const p = r.payload;
    if (r.type !== 'response_item' || !isObject(p) || p.type !== 'message' || p.role !== 'user' || !Array.isArray(p.content)) continue;
    const text = p.content
      .filter(isObject)
      .map((c) => (typeof c.text === 'string' ? c.text : ''))
      .join(' ');
    // Codex opens a session with its environment and instructions as tagged user messages.
    if (text.trim() !== '' && !text.trimStart().startsWith('<')) return promptLine(text);
  }
  return null;
}

/**
 * The JSON objects on the complete lines of a file's first HEAD_BYTES, and its mtime; null when it
 * cannot be read or is not a regular file (safeRead: a FIFO or a device is never opened for long).
 */
function readJsonlHead(file: string): { lines: Json[]; modifiedAt: number } | null {
  let opened: RegularFd;
  try {
    opened = openRegularSync(file);
  } catch {
    return null;
  }
  try {
    // A line cut at HEAD_BYTES is torn, so left out; describing the file does not need it.
    const { lines } = parseTranscript(readUpToSync(opened.fd, opened.stat.size, HEAD_BYTES));
    return { lines: lines.map((l) => l.record).filter(isObject), modifiedAt: opened.stat.mtimeMs };
  } finally {
    fs.closeSync(opened.fd);
  }
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
