import type { Entry } from '../entry';
import type { FileEdit } from './fileChange';

/**
 * The file edits an entry records: a `tool_call` of an edit tool of `agent` (the session's agent:
 * its ingest format name, or `agent-tape`), with its arguments, or an agent's edit event; [] for
 * any other entry or arguments that do not say what was written.
 */
export function editsOfEntry(agent: string, entry: Entry): FileEdit[] {
  void agent;
  void entry;
  throw new Error('editsOfEntry: not built yet');
}
