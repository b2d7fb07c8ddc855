import { SUMMARY_EDIT_EVENT } from '../entryNames';
import { isReconstructionAnchor, textOf, type Entry } from '../entry';
import { entryText, readable } from '../entryText';
import type { FoldRow } from '../fold';

/**
 * What a search hit shows of an entry. Only the first `SEARCH_TEXT_MAX` UTF-16 code units
 * of a hit's text are read for its snippet and phrase bonus, which bounds the work per hit: a tool
 * result of megabytes is found by all it says (the tape's index holds it whole) and shown by its
 * beginning.
 */
export const SEARCH_TEXT_MAX = 16 * 1024;

/**
 * The entries whose text is searched: user and assistant messages, tool calls and results,
 * compaction summaries (the anchors and the user's edits of them) and handoff notes. Told from
 * the fold row, without the payload.
 */
export function isSearchable(row: Pick<FoldRow, 'kind' | 'name'>): boolean {
  switch (row.kind) {
    case 'message':
    case 'tool_call':
    case 'tool_result':
      return true;
    case 'anchor':
      return isReconstructionAnchor(row.name);
    case 'event':
      return row.name === SUMMARY_EDIT_EVENT;
    default:
      return false;
  }
}

const state = (e: Entry): Record<string, unknown> => {
  const s = e.kind === 'anchor' ? e.payload.state : e.payload.data;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
};

function cap(text: string): string {
  if (text.length <= SEARCH_TEXT_MAX) return text;
  // Never half a surrogate pair at the cut.
  const end = /[\ud800-\udbff]/.test(text[SEARCH_TEXT_MAX - 1]) ? SEARCH_TEXT_MAX - 1 : SEARCH_TEXT_MAX;
  return text.slice(0, end);
}

/**
 * The shown text of an entry, capped: of a searchable one what its transcript says (a tool call:
 * its name and input; a handoff: its summary and state), of any other what the index holds.
 */
export function searchableText(e: Entry): string {
  const p = e.payload;
  if (!isSearchable(e)) return cap(entryText(e.kind, e.name, p));
  switch (e.kind) {
    case 'message':
      return cap(textOf(p.content));
    case 'tool_call':
      return cap(`${e.name}\n${readable(p.input)}`);
    case 'tool_result':
      return cap(readable(p.output));
    default: {
      // A reconstruction anchor or a summary edit.
      const s = state(e);
      return cap([readable(s.summary), readable(s.state)].filter(Boolean).join('\n'));
    }
  }
}
