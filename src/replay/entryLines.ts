import type { Entry } from '../tape/entry';
import { summaryOf } from '../tape/entrySummary';
import { unicodeEscape } from '../tape/unicodeEscape';

// Control characters other than the whitespace `summaryOf` already folds: shown, never interpreted.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The short, single-line text of an entry, as its replay document line and the Variables show it. */
export const shortText = (e: Entry): string => summaryOf(e.kind, e.name, e.payload).replace(CONTROL, unicodeEscape);

/** Line n of a session's replay document, for entry n: `#n kind name: short text`. */
export const entryLine = (e: Entry): string => `#${e.entryId} ${e.kind} ${e.name.replace(CONTROL, '?')}: ${shortText(e)}`;

/** The replay document of a session: entry n on line n, so a line breakpoint is an entry id. */
export const entryLines = (entries: readonly Entry[]): string => entries.map(entryLine).join('\n');
