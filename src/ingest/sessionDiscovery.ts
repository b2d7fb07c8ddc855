import type { AgentDiscovery, DiscoveredSession, DiscoveryPlaces } from './agentDiscovery';
import { AGENTS } from './agents';

export { promptLine, type AgentDiscovery, type DiscoveredSession, type DiscoveryPlaces } from './agentDiscovery';

/** Every agent whose sessions are looked for, from the registry. */
export const AGENT_DISCOVERIES: readonly AgentDiscovery[] = Object.values(AGENTS).flatMap((a) => (a.discovery === null ? [] : [a.discovery]));

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
