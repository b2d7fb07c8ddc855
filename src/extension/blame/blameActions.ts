import type { LineOrigin } from '../../blame/tapeBlame';

/** A command on a line's origin, as a hover's link or a pick's item runs it. */
export interface BlameAction {
  title: string;
  command: BlameCommand;
  args: readonly (string | number)[];
}

/** The only commands agent blame offers: a hover trusts exactly these. */
export const BLAME_COMMANDS = ['agentTape.openInspector', 'agentTape.rerunRequest'] as const;
export type BlameCommand = (typeof BLAME_COMMANDS)[number];

export interface BlameActionContext {
  /** The inspector and Re-run number a session's entries by their position in its view (a fork's come after its parent's). */
  positionOf(sessionId: string, entryId: number): number;
  /** Re-run records a fork: only in a trusted workspace whose tape this window may write. */
  canRerun: boolean;
}

/**
 * What can be done from a line an agent wrote: open the inspector at the edit; show the request
 * whose answer made it (its `view/assembled` entry, whose detail is the ViewManifest); re-run that
 * request. The last two only when the tape recorded the request (other agents' sessions do not).
 */
export function blameActions(origin: LineOrigin, context: BlameActionContext): BlameAction[] {
  const at = (entryId: number): [string, number] => [origin.sessionId, context.positionOf(origin.sessionId, entryId)];
  const actions: BlameAction[] = [{ title: 'Open in Inspector', command: 'agentTape.openInspector', args: at(origin.entryId) }];
  if (origin.requestEntryId === null) return actions;
  actions.push({ title: 'Show the Request', command: 'agentTape.openInspector', args: at(origin.requestEntryId) });
  if (context.canRerun) actions.push({ title: 'Re-run…', command: 'agentTape.rerunRequest', args: at(origin.requestEntryId) });
  return actions;
}
