import type { SearchHit } from '../../store/search';
import type { SearchScope } from '../../store/subagentLinks';
import type { Entry, JsonObject, Kind } from '../../tape/entry';

export interface TapeInfo {
  sessionId: string;
  headEntryId: number;
  entriesByKind: Partial<Record<Kind, number>>;
  anchorCount: number;
  title: string | null;
}

export interface TapeAnchor {
  entryId: number;
  name: string;
  /** The reconstruction anchor the default context starts from. */
  inForce: boolean;
}

/**
 * What the tape tools may do, scoped to the one session the agent works in: the model can look back
 * at its own history and leave a handoff, never read another session or write anything else.
 */
export interface TapePort {
  readonly sessionId: string;
  /**
   * Ranked full-text hits, best first (FTS4 query syntax; bad syntax throws), of this session, of
   * its linked subagents up to their frozen heads, or both (default: this session); a hit's
   * `sessionId` says which.
   */
  search(query: string, options: { kinds?: readonly Kind[]; limit: number; scope?: SearchScope }): SearchHit[];
  /**
   * The entries with ids within `before`/`after` of any of `entryIds`, in entry order, each once:
   * of this session, or of `childSessionId`, a linked subagent, up to its frozen head (a child
   * that is not a sound direct link throws).
   */
  window(entryIds: readonly number[], before: number, after: number, childSessionId?: string): Entry[];
  /** The linked subagents readable through their links, and the ones refused with why. */
  links(): { readable: { childSessionId: string; frozenHead: number }[]; refused: { childSessionId: string; reason: string }[] };
  info(): TapeInfo;
  anchors(): TapeAnchor[];
  /** Appends a `handoff/<name>` anchor durably and returns it at its position in the session's view. */
  handoff(name: string, summary: string, state?: JsonObject): Promise<Entry>;
}
