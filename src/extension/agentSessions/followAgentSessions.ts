import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { discoveryRoots, workspaceSourceOf, type DiscoveryPlaces } from '../../ingest/sessionDiscovery';
import { sourcesUnder } from '../../ingest/sourcesUnder';
import { errorMessage } from '../../tape/errorMessage';
import type { Deps } from '../deps';
import { agentTranscripts } from './agentTranscripts';
import { discoveryPlacesOf } from './discoveryPlaces';

const SETTING = 'agentTape.followAgentSessions';
/** Agents write a record in several chunks; one ingest per burst. */
const DEBOUNCE_MS = 100;

/**
 * With `agentTape.followAgentSessions` on, new and growing sessions of every agent of this
 * workspace (sessionDiscovery.ts AGENT_DISCOVERIES) are ingested into the workspace tape as the other agent writes them (only the new
 * records are appended), so an open inspector shows that agent's work live. Off by default: it
 * reads files outside the workspace.
 */
export function registerFollowAgentSessions(deps: Pick<Deps, 'context' | 'log' | 'tape'>): vscode.Disposable {
  let watching: vscode.Disposable | undefined;
  const update = (): void => {
    watching?.dispose();
    watching = undefined;
    const places = discoveryPlacesOf(deps.context);
    if (!vscode.workspace.getConfiguration().get<boolean>(SETTING, false) || places === undefined) return;
    watching = follow(deps, places);
    deps.log.info(`following this workspace's agent sessions under ${discoveryRoots(places).join(', ')}`);
  };
  update();
  const onSetting = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SETTING)) update();
  });
  return { dispose: () => (onSetting.dispose(), watching?.dispose()) };
}

function follow(deps: Pick<Deps, 'log' | 'tape'>, places: DiscoveryPlaces): vscode.Disposable {
  const timers = new Map<string, NodeJS.Timeout>();
  // One ingest at a time: each appends in its own transactions, and a file re-read while its last
  // ingest runs would only append what that one is appending.
  let queue = Promise.resolve();
  const changed = (file: string): void => {
    const transcript = workspaceSourceOf(file, places);
    if (transcript === null) return;
    clearTimeout(timers.get(transcript));
    timers.set(
      transcript,
      setTimeout(() => {
        timers.delete(transcript);
        queue = queue.then(async () => {
          try {
            const ws = await deps.tape.open();
            if (ws.state.mode === 'readOnly') return;
            const { appended } = await agentTranscripts.ingest(ws.store, transcript);
            if (appended > 0) deps.log.debug(`followed ${path.basename(transcript)}: ${appended} new entries`);
          } catch (e) {
            deps.log.warn(`following ${transcript} failed: ${errorMessage(e)}`);
          }
        });
      }, DEBOUNCE_MS),
    );
  };
  const watches = discoveryRoots(places).map((dir) => watchWhenThere(dir, changed));
  return {
    dispose: () => {
      for (const w of watches) w.dispose();
      for (const t of timers.values()) clearTimeout(t);
    },
  };
}

/** How often a folder that is not there yet is looked for (an agent used here for the first time). */
const APPEAR_POLL_MS = 2000;

/**
 * Watches a folder outside the workspace, recursively, for transcript changes; a folder that does
 * not exist yet is watched from when it appears.
 */
function watchWhenThere(dir: string, changed: (file: string) => void): vscode.Disposable {
  let watcher: fs.FSWatcher | undefined;
  const start = (): boolean => {
    if (!fs.existsSync(dir)) return false;
    watcher = fs.watch(dir, { recursive: true }, (_event, name) => {
      if (name !== null) changed(path.join(dir, name.toString()));
    });
    watcher.on('error', () => undefined);
    return true;
  };
  // Everything in a folder that appeared while following is new, including what was written into
  // it before the watch began.
  const appeared = (): void => {
    if (!start()) return;
    clearInterval(poll);
    for (const file of sourcesUnder(dir)) changed(file);
  };
  const poll = start() ? undefined : setInterval(appeared, APPEAR_POLL_MS);
  return { dispose: () => (clearInterval(poll), watcher?.close()) };
}
