import type { FileChange, FileEdit } from './fileChange';

/**
 * The `*** Begin Patch` format of Codex's apply_patch (codex-rs `apply-patch/src/parser.rs`), which
 * opencode and Copilot Chat also take. Read as codex-rs reads it: the envelope lines may carry
 * spaces around them and the patch may sit in a heredoc (`<<'EOF'` … `EOF`); the first hunk of an
 * update may lack its `@@`; blank lines between hunks are passed over; an empty line in a hunk is
 * an empty context line; anything else the parser does not know makes the whole patch invalid, as
 * codex-rs then applies nothing.
 *
 * A hunk replaces whole lines, so its texts are those lines each with its line break: old = the
 * context and removed lines, new = the context and added lines (a hunk that removes lines leaves no
 * empty line behind). A hunk marked `*** End of File` that keeps lines leaves the last line break
 * out of both, so it also matches a file that lacks one. A hunk of added lines alone is appended at
 * the end of the file by codex-rs whatever its `@@` header says: that text is `written`, its place
 * unknown here.
 */

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const HEREDOC_START = /^<<(['"]?)EOF\1$/;

const lineText = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

/** The patch's edits, one per file section in order; [] for text that is not a valid patch. */
export function editsOfPatch(patch: string): FileEdit[] {
  const lines = envelope(patch.trim().split('\n'));
  if (lines === null) return [];
  const edits: FileEdit[] = [];
  let at = 0;
  while (at < lines.length) {
    const section = sectionAt(lines, at);
    if (section === null) return [];
    edits.push(section.edit);
    at = section.next;
  }
  return edits;
}

/** The lines between `*** Begin Patch` and `*** End Patch`, a heredoc around them taken off; null without both. */
function envelope(all: string[]): string[] | null {
  let lines = all.map((l) => l.replace(/\r$/, ''));
  const first = lines[0]?.trim();
  if (first !== undefined && HEREDOC_START.test(first) && lines.length >= 4 && lines[lines.length - 1].trim().endsWith('EOF')) lines = lines.slice(1, -1);
  if (lines.length < 2 || lines[0].trim() !== BEGIN || lines[lines.length - 1].trim() !== END) return null;
  return lines.slice(1, -1);
}

function sectionAt(lines: readonly string[], start: number): { edit: FileEdit; next: number } | null {
  const header = lines[start].trim();
  if (header.startsWith(ADD)) {
    const path = header.slice(ADD.length).trim();
    const added: string[] = [];
    let at = start + 1;
    for (; at < lines.length && lines[at].startsWith('+'); at++) added.push(lines[at].slice(1));
    return path === '' ? null : { edit: { path, changes: [{ kind: 'write', content: lineText(added) }] }, next: at };
  }
  if (header.startsWith(DELETE)) {
    const path = header.slice(DELETE.length).trim();
    return path === '' ? null : { edit: { path, changes: [{ kind: 'delete' }] }, next: start + 1 };
  }
  if (!header.startsWith(UPDATE)) return null;
  const path = header.slice(UPDATE.length).trim();
  if (path === '') return null;
  let at = start + 1;
  let movedTo: string | undefined;
  if (at < lines.length && lines[at].trim().startsWith(MOVE)) {
    movedTo = lines[at].trim().slice(MOVE.length).trim();
    if (movedTo === '') return null;
    at++;
  }
  const changes: FileChange[] = [];
  while (at < lines.length && !lines[at].startsWith('***')) {
    if (lines[at].trim() === '') {
      at++;
      continue;
    }
    const hunk = hunkAt(lines, at, changes.length === 0);
    if (hunk === null) return null;
    changes.push(hunk.change);
    at = hunk.next;
  }
  if (changes.length === 0) return null;
  return { edit: { path, changes, ...(movedTo !== undefined ? { movedTo } : {}) }, next: at };
}

/** One `@@` hunk from `start`; the first of a section may come without its `@@` line. */
function hunkAt(lines: readonly string[], start: number, first: boolean): { change: FileChange; next: number } | null {
  let at = start;
  const head = lines[at].trim();
  if (head === '@@' || head.startsWith('@@ ')) at++;
  else if (!first) return null;
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let count = 0;
  let endOfFile = false;
  for (; at < lines.length; at++) {
    const line = lines[at];
    if (line.trim() === END_OF_FILE) {
      if (count === 0) return null;
      endOfFile = true;
      at++;
      break;
    }
    const mark = line[0];
    if (line === '') {
      oldLines.push('');
      newLines.push('');
    } else if (mark === ' ') {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    } else if (mark === '-') oldLines.push(line.slice(1));
    else if (mark === '+') newLines.push(line.slice(1));
    else if (count === 0) return null;
    else break;
    count++;
  }
  if (count === 0) return null;
  if (oldLines.length === 0) return { change: { kind: 'written', newText: lineText(newLines) }, next: at };
  // At the end of the file its last line break is left where it is, so the old text is found in a file that lacks one.
  const trim = endOfFile && newLines.length > 0 ? (text: string) => text.slice(0, -1) : (text: string) => text;
  const change: FileChange = { kind: 'replace', oldText: trim(lineText(oldLines)), newText: trim(lineText(newLines)), all: false };
  return { change, next: at };
}
