import type { FileChange } from './fileChange';

/**
 * The SEARCH/REPLACE blocks of Cline's replace_in_file and Roo Code's and Kilo Code's apply_diff:
 * `------- SEARCH` (or the older `<<<<<<< SEARCH`), the lines to find, `=======`, the lines to put
 * there, `+++++++ REPLACE` (or `>>>>>>> REPLACE`); Roo's blocks may start with `:start_line:` and
 * `:end_line:` lines and a `-------` line, which are not content. Text outside the blocks is
 * ignored, as the agents ignore it. Both agents replace whole lines, so each text is its lines each
 * with its line break. An empty SEARCH is Cline's way to write the whole file.
 */

const SEARCH_START = /^(?:-{3,}|<{3,}) SEARCH>?$/;
const SEPARATOR = /^={3,}$/;
const REPLACE_END = /^(?:\+{3,}|>{3,}) REPLACE>?$/;
const ROO_LINE_META = /^:(?:start|end)_line:\s*\d+\s*$/;
const ROO_SEARCH_SEPARATOR = /^-{3,}$/;

const lineText = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

/** The changes a diff's blocks make, in order; null for a diff with no block or with a block left open. */
export function changesOfSearchReplace(diff: string): FileChange[] | null {
  const changes: FileChange[] = [];
  let state: 'outside' | 'search' | 'replace' = 'outside';
  let search: string[] = [];
  let replace: string[] = [];
  let head = false;
  for (const raw of diff.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (state === 'outside') {
      if (SEARCH_START.test(line.trim())) {
        state = 'search';
        search = [];
        head = true;
      }
    } else if (state === 'search') {
      if (head && (ROO_LINE_META.test(line.trim()) || ROO_SEARCH_SEPARATOR.test(line.trim()))) continue;
      head = false;
      if (SEPARATOR.test(line.trim())) {
        state = 'replace';
        replace = [];
      } else search.push(line);
    } else if (REPLACE_END.test(line.trim())) {
      changes.push(
        search.length === 0
          ? { kind: 'write', content: lineText(replace) }
          : { kind: 'replace', oldText: lineText(search), newText: lineText(replace), all: false },
      );
      state = 'outside';
    } else replace.push(line);
  }
  return state === 'outside' && changes.length > 0 ? changes : null;
}
