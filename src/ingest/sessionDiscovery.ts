import * as fs from 'fs';
import * as path from 'path';
import { openRegularSync, readUpToSync, type RegularFd } from '../store/safeRead';
import { oneLine } from '../tape/oneLine';
import type { FormatName } from './format';
import { parseTranscript } from './transcriptLines';
import { ownerTranscriptOf, transcriptFilesUnder } from './transcriptFiles';

/** A transcript another agent wrote for a workspace, as a list to pick from shows it. */
export interface DiscoveredSession {
  format: FormatName;
  file: string;
  /** The first thing the user asked, on one line; null when the transcript has no plain prompt yet. */
  firstPrompt: string | null;
  modifiedAt: number;
}

/** Only the head of a transcript is read to describe it: the first prompt comes early. */
const HEAD_BYTES = 256 * 1024;
/** Codex keeps every workspace's rollouts in one tree; only the newest are opened to read their cwd. */
const CODEX_CANDIDATES = 500;
const PROMPT_CHARS = 200;

/**
 * Where Claude Code keeps a workspace's transcripts: `~/.claude/projects/` and the workspace path
 * with every character other than a letter, digit or `-` written as `-` (`/home/me/my.app` ->
 * `-home-me-my-app`).
 */
export function claudeCodeProjectDir(home: string, workspacePath: string): string {
  return path.join(home, '.claude', 'projects', path.resolve(workspacePath).replace(/[^A-Za-z0-9-]/g, '-'));
}

/**
 * The Claude Code and Codex sessions of a workspace, newest first: Claude Code's transcripts in the
 * workspace's project folder (subagent files are part of their parent's session and not listed),
 * Codex rollouts whose `session_meta` names the workspace as its `cwd`. Unreadable files are left out.
 */
export function discoverSessions(workspacePath: string, home: string): DiscoveredSession[] {
  const workspace = path.resolve(workspacePath);
  const found: DiscoveredSession[] = [];
  const projectDir = claudeCodeProjectDir(home, workspace);
  for (const name of safeReaddir(projectDir)) {
    if (!name.endsWith('.jsonl')) continue;
    const file = path.join(projectDir, name);
    const head = readHead(file);
    if (head === null) continue;
    found.push({ format: 'claude-code', file, firstPrompt: firstClaudePrompt(head.lines), modifiedAt: head.modifiedAt });
  }
  const codexDir = path.join(home, '.codex', 'sessions');
  const rollouts = (fs.existsSync(codexDir) ? transcriptFilesUnder(codexDir) : [])
    .filter((f) => /rollout-.*\.jsonl$/.test(f))
    .map((file) => ({ file, modifiedAt: mtimeOf(file) }))
    .sort((a, b) => b.modifiedAt - a.modifiedAt)
    .slice(0, CODEX_CANDIDATES);
  for (const { file } of rollouts) {
    const head = readHead(file);
    if (head === null || !codexCwdIs(head.lines, workspace)) continue;
    found.push({ format: 'codex', file, firstPrompt: firstCodexPrompt(head.lines), modifiedAt: head.modifiedAt });
  }
  return found.sort((a, b) => b.modifiedAt - a.modifiedAt);
}

/**
 * The transcript file to ingest when `file` changed, if it is one of the workspace's: a Claude Code
 * subagent file stands for its parent session's transcript (they are mapped together), a Codex
 * rollout counts when its `session_meta` names the workspace.
 */
export function workspaceTranscriptOf(file: string, workspacePath: string, home: string): string | null {
  if (!file.endsWith('.jsonl')) return null;
  const workspace = path.resolve(workspacePath);
  const project = claudeCodeProjectDir(home, workspace);
  const rel = path.relative(project, file);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
    const owner = ownerTranscriptOf(file);
    return path.dirname(owner) === project ? owner : null;
  }
  const head = readHead(file);
  return head !== null && codexCwdIs(head.lines, workspace) ? file : null;
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
    if (text.trim() !== '' && !text.trimStart().startsWith('<')) return oneLine(text, PROMPT_CHARS);
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
    if (text.trim() !== '' && !text.trimStart().startsWith('<')) return oneLine(text, PROMPT_CHARS);
  }
  return null;
}

/**
 * The JSON objects on the complete lines of a file's first HEAD_BYTES, and its mtime; null when it
 * cannot be read or is not a regular file (safeRead: a FIFO or a device is never opened for long).
 */
function readHead(file: string): { lines: Json[]; modifiedAt: number } | null {
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

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
