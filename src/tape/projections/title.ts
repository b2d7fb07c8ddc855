import { TITLE_EVENT } from '../entryNames';
import type { Entry } from '../entry';
import { decidesEffectiveness, factOf, foldReduction, type FactLog } from './foldedLog';
import type { Projection } from './projection';
import { BIDI_FORMATTING, unicodeEscape } from '../unicodeEscape';
import { appendLog, emptyLog } from './sharedLog';

/** Titles are shown in lists and tab labels; longer ones are cut at a word-agnostic character count. */
export const TITLE_MAX_CHARS = 80;

export interface TitleState {
  /** An explicit title (a `session/title` event) is never replaced by the first-message guess. */
  readonly explicit: string | null;
  /** Message rows (with their first line) and retractions: the guess follows the effective view. */
  readonly messages: FactLog<string | null>;
}

/**
 * A title as lists, tab labels, pickers and dialogs show it: its bidirectional formatting characters
 * as escapes, since VS Code applies them there and a hostile transcript's title could then read as
 * another session's.
 */
const shown = (title: string): string => title.replace(BIDI_FORMATTING, unicodeEscape);

function clip(line: string): string {
  const chars = Array.from(line); // by code point, so a surrogate pair is never cut in half
  return chars.length <= TITLE_MAX_CHARS
    ? line
    : `${chars
        .slice(0, TITLE_MAX_CHARS - 1)
        .join('')
        .trimEnd()}…`;
}

/** The first non-blank line: a message that starts with an empty line still names the session. */
function firstLine(content: unknown): string | null {
  if (typeof content !== 'string') return null;
  // Line by line, not split whole: a long message's lines after the first are never looked at.
  for (let start = 0; start <= content.length;) {
    const nl = content.indexOf('\n', start);
    const end = nl < 0 ? content.length : nl;
    const t = content.slice(start, end).trim();
    if (t !== '') return t;
    start = end + 1;
  }
  return null;
}

const folded = foldReduction<string | null>();

/**
 * The explicit title, or else the first line of the first effective user message that has one: a
 * retracted message does not name the session, and a revised one names it with its new text.
 */
export const titleProjection: Projection<TitleState, string | null> = {
  key: 'title',
  version: 2,
  init: () => ({ explicit: null, messages: emptyLog() }),
  apply(state: TitleState, entry: Entry): TitleState {
    if (entry.kind === 'event' && entry.name === TITLE_EVENT) {
      const data = entry.payload.data as { title?: unknown } | null | undefined;
      const title = typeof data?.title === 'string' ? data.title.trim() : '';
      return title === '' ? state : { explicit: title, messages: state.messages };
    }
    // Once named explicitly, messages can no longer change the title.
    if (state.explicit !== null || !decidesEffectiveness(entry)) return state;
    // Only user messages name a session: an assistant's (streamed, revised) text is never read.
    const line = entry.kind === 'message' && entry.payload.role === 'user' ? firstLine(entry.payload.content) : undefined;
    return { explicit: null, messages: appendLog(state.messages, factOf(entry, line)) };
  },
  view(state: TitleState): string | null {
    if (state.explicit !== null) return shown(state.explicit);
    const { fold, values } = folded.of(state.messages);
    for (const m of fold.messages) {
      const line = m.role === 'user' ? values.get(m.entryId) : null;
      if (line) return shown(clip(line));
    }
    return null;
  },
};
