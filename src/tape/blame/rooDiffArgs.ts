import type { FileChange, FileEdit } from './fileChange';
import { changesOfSearchReplace } from './searchReplaceBlocks';

/**
 * Roo Code's multi-file apply_diff, whose XML `args` our ingest keeps as text:
 * `<file><path>p</path><diff><content>blocks</content><start_line>n</start_line></diff>…</file>…`,
 * the content perhaps in `<![CDATA[…]]>`. Read with plain searches, each from where the last one
 * ended, so text with many unclosed tags costs one pass.
 */

/** The text between `open` and the next `close` from `from`, and where it ends; null when either is missing. */
function element(text: string, open: string, close: string, from: number): { inner: string; end: number } | null {
  const start = text.indexOf(open, from);
  if (start < 0) return null;
  const end = text.indexOf(close, start + open.length);
  if (end < 0) return null;
  return { inner: text.slice(start + open.length, end), end: end + close.length };
}

const CDATA = /^<!\[CDATA\[([\s\S]*)\]\]>$/;

/** Each file's edits; [] when a file has no path, no diff or a diff that is not blocks. */
export function editsOfRooDiffArgs(args: string): FileEdit[] {
  const edits: FileEdit[] = [];
  for (let file = element(args, '<file>', '</file>', 0); file !== null; file = element(args, '<file>', '</file>', file.end)) {
    const body = file.inner;
    const path = element(body, '<path>', '</path>', 0)?.inner.trim() ?? '';
    const changes: FileChange[] = [];
    for (let content = element(body, '<content>', '</content>', 0); content !== null; content = element(body, '<content>', '</content>', content.end)) {
      const text = content.inner.trim();
      const blocks = changesOfSearchReplace(CDATA.exec(text)?.[1] ?? text);
      if (blocks === null) return [];
      changes.push(...blocks);
    }
    if (path === '' || changes.length === 0) return [];
    edits.push({ path, changes });
  }
  return edits;
}
