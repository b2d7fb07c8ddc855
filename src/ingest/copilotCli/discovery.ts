import * as path from 'path';
import { promptLine, type AgentDiscovery, type DiscoveredSession } from '../agentDiscovery';
import { readHead } from '../jsonlHead';
import { listDir } from '../sourceFiles';
import { eventsOf } from './events';
import { firstPromptOf } from './firstPrompt';
import { EVENTS_FILE, sessionLogOf, sessionStateDir, workspaceCwdOf } from './sessionFolder';

/** The first prompt comes right after `session.start`, within the head of the log a list reads. */
function describe(log: string): { firstPrompt: string | null; modifiedAt: number } | null {
  const head = readHead(log);
  if (head === null) return null;
  const prompt = firstPromptOf(eventsOf(head.bytes, {}).events);
  return { firstPrompt: prompt === undefined ? null : promptLine(prompt), modifiedAt: head.modifiedAt };
}

const isWorkspaceLog = (log: string, workspace: string): boolean => {
  const cwd = workspaceCwdOf(log);
  return cwd !== undefined && path.resolve(cwd) === path.resolve(workspace);
};

/**
 * Copilot CLI's sessions of the workspace: the folders of `~/.copilot/session-state/` whose
 * `workspace.yaml` names the workspace as the folder the session ran in.
 */
export const copilotCliDiscovery: AgentDiscovery = {
  discover({ workspace, home }) {
    const found: DiscoveredSession[] = [];
    const state = sessionStateDir(home);
    for (const e of listDir(state)) {
      const log = sessionLogOf(path.join(state, e.name, EVENTS_FILE));
      if (!e.isDirectory() || log === null || !isWorkspaceLog(log, workspace)) continue;
      const described = describe(log);
      if (described !== null) found.push({ format: 'copilot-cli', file: log, ...described });
    }
    return found.sort((a, b) => b.modifiedAt - a.modifiedAt);
  },
  roots: ({ home }) => [sessionStateDir(home)],
  sourceOf(file, { workspace, home }) {
    const log = sessionLogOf(file);
    if (log === null || path.dirname(path.dirname(log)) !== path.resolve(sessionStateDir(home))) return null;
    return isWorkspaceLog(log, workspace) ? log : null;
  },
};
