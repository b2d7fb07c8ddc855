import type { Entry } from '../entry';
import type { Projection } from './projection';

/** Titles are shown in lists and tab labels; longer ones are cut at a word-agnostic character count. */
export const TITLE_MAX_CHARS = 80;
export const TITLE_EVENT = 'session/title';

export interface TitleState {
  readonly title: string | null;
  /** An explicit title (a `session/title` event) is never replaced by the first-message guess. */
  readonly explicit: boolean;
}

function clip(line: string): string {
  const chars = Array.from(line); // by code point, so a surrogate pair is never cut in half
  return chars.length <= TITLE_MAX_CHARS ? line : `${chars.slice(0, TITLE_MAX_CHARS - 1).join('').trimEnd()}…`;
}

/** The first non-blank line: a message that starts with an empty line still names the session. */
function firstLine(content: string): string | null {
  for (const line of content.split('\n')) {
    const t = line.trim();
    if (t !== '') return t;
  }
  return null;
}

export const titleProjection: Projection<TitleState, string | null> = {
  key: 'title',
  version: 1,
  init: () => ({ title: null, explicit: false }),
  apply(state: TitleState, entry: Entry): TitleState {
    if (entry.kind === 'event' && entry.name === TITLE_EVENT) {
      const data = entry.payload.data as { title?: unknown } | null | undefined;
      const title = typeof data?.title === 'string' ? data.title.trim() : '';
      return title === '' ? state : { title, explicit: true };
    }
    if (state.title !== null || entry.kind !== 'message' || entry.payload.role !== 'user') return state;
    const line = typeof entry.payload.content === 'string' ? firstLine(entry.payload.content) : null;
    return line === null ? state : { title: clip(line), explicit: false };
  },
  view: (state) => state.title,
};
