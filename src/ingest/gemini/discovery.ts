import * as fs from 'fs';
import * as path from 'path';
import { openRegularSync, readUpToSync } from '../../store/safeRead';
import { promptLine, type AgentDiscovery, type DiscoveredSession } from '../agentDiscovery';
import { geminiTmpDir, isWorkspaceProject, workspaceProjectDirs } from './projectDirs';
import { readRecording, recordingOfLines, type Recording } from './recording';
import { hasSuccessor, recordingPlaceOf, recordingSourceOf } from './recordingFiles';
import { firstPromptOf } from './sessionEntries';
import { listDir } from '../sourceFiles';
import { parseTranscript } from '../transcriptLines';

/** A JSONL recording's first prompt comes early; only this much of it is read to describe it. */
const HEAD_BYTES = 256 * 1024;

/** The head of a JSONL recording, or the whole of a JSON one (its `kind` comes last), and its mtime; null when it cannot be read. */
function describe(file: string): { rec: Recording; modifiedAt: number } | null {
  try {
    if (!file.endsWith('.jsonl')) return { rec: readRecording(file, {}), modifiedAt: fs.statSync(file).mtimeMs };
    const { fd, stat } = openRegularSync(file);
    try {
      const rec = recordingOfLines(
        parseTranscript(readUpToSync(fd, stat.size, HEAD_BYTES)).lines.map((l) => l.record),
        {},
      );
      return rec === null ? null : { rec, modifiedAt: stat.mtimeMs };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/**
 * Gemini CLI's sessions of the workspace: the session files in `chats/` of its project folders
 * (projectDirs.ts). Subagents are part of their parent's session and not listed; a file a v0.29
 * migration copied into the slug folder is listed once, from there.
 */
export const geminiDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    const found: DiscoveredSession[] = [];
    const listed = new Set<string>();
    for (const dir of workspaceProjectDirs(home, workspace)) {
      const chats = path.join(dir, 'chats');
      for (const e of listDir(chats)) {
        const file = path.join(chats, e.name);
        if (!e.isFile() || !/\.jsonl?$/.test(e.name) || hasSuccessor(file) || listed.has(e.name)) continue;
        const described = describe(file);
        if (described === null || described.rec.kind === 'subagent') continue;
        listed.add(e.name);
        const prompt = firstPromptOf(described.rec) ?? described.rec.summary;
        found.push({ format: 'gemini', file, firstPrompt: prompt === undefined ? null : promptLine(prompt), modifiedAt: described.modifiedAt });
      }
    }
    return found.sort((a, b) => b.modifiedAt - a.modifiedAt);
  },
  roots: ({ workspace, home }) => workspaceProjectDirs(home, workspace).map((d) => path.join(d, 'chats')),
  sourceOf(file, { workspace, home }) {
    const place = recordingPlaceOf(file);
    if (place === null || path.dirname(place.projectDir) !== path.resolve(geminiTmpDir(home))) return null;
    return isWorkspaceProject(place.projectDir, home, workspace) ? recordingSourceOf(file) : null;
  },
};
