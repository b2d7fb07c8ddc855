import * as path from 'path';
import type { AgentDiscovery, DiscoveredSession } from '../agentDiscovery';
import { readJsonlHead } from '../jsonlHead';
import { listDir } from '../sourceFiles';
import { ownerTranscriptOf } from '../transcriptFiles';
import { firstPromptOf } from './firstPrompt';

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
      if (head !== null) found.push({ format: 'claude-code', file, firstPrompt: firstPromptOf(head.lines), modifiedAt: head.modifiedAt });
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
