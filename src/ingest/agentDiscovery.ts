import { oneLine } from '../tape/oneLine';
import type { FormatName } from './format';

/**
 * What a discovery of one agent's sessions is (sessionDiscovery.ts lists every agent's): its own
 * file, so that an agent's discovery in a file of its own and the list of them do not import each other.
 */

/** A session another agent wrote for a workspace, as a list to pick from shows it. */
export interface DiscoveredSession {
  format: FormatName;
  /** The source to ingest: a transcript file, a task folder, a database. */
  file: string;
  /** The first thing the user asked (or the session's title), on one line; null when there is none yet. */
  firstPrompt: string | null;
  modifiedAt: number;
}

/** Where agents keep a workspace's sessions: the workspace, the home folder, and VS Code's storage of this window. */
export interface DiscoveryPlaces {
  workspace: string;
  home: string;
  /** VS Code's `workspaceStorage/<id>` folder of this window (the parent of an extension's `storageUri`), in VS Code. */
  workspaceStorage?: string;
  /** VS Code's `globalStorage` folder (the parent of an extension's `globalStorageUri`), in VS Code. */
  globalStorage?: string;
}

/** One agent's sessions of a workspace: listed for an import, and followed as they change. */
export interface AgentDiscovery {
  /** The workspace's sessions of this agent; unreadable ones are left out. */
  discover(places: DiscoveryPlaces): DiscoveredSession[];
  /** Folders (that may not exist yet) whose changes may be this agent's sessions of the workspace. */
  roots(places: DiscoveryPlaces): string[];
  /** The source to ingest when `file` under one of the roots changed, when it is one of the workspace's; else null. */
  sourceOf(file: string, places: DiscoveryPlaces): string | null;
}

const PROMPT_CHARS = 200;

/** A prompt as a list shows it: on one line, cut short. */
export const promptLine = (text: string): string => oneLine(text, PROMPT_CHARS);
