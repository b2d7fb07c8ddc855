import * as path from 'path';
import { sourceFormatOfContent, sourceFormatOfFolder, sourceOfPath } from './detect';
import type { FormatName } from './format';
import { listDir } from './sourceFiles';
import { COMPANION_DIR, ownerTranscriptOf } from './transcriptFiles';

/** How many entries a folder walk looks at before it stops: a home folder handed over by mistake ends. */
const WALK_MAX_ENTRIES = 200_000;
/** How deep a walk goes below the folder given: agents' own trees are at most 8 deep from a home folder. */
const WALK_MAX_DEPTH = 16;
/** How many files a walk reads the first bytes of (64 KiB each): a folder of unrelated JSON costs at most this much. */
const WALK_MAX_SNIFFED = 20_000;
/** Files an agent may have written, or a copy renamed: their first bytes tell whose they are. */
const SNIFFED = /\.(?:jsonl?|db|sqlite3?)$/i;

/** A source a folder walk found. */
export interface FoundSource {
  /** The source to ingest: a transcript file, a task folder, a database, a storage folder. */
  source: string;
  /** The format that claims it by its path or its first bytes; null for another `*.jsonl` (a Claude Code or Codex transcript, perhaps). */
  format: FormatName | null;
}

export interface FolderSources {
  sources: FoundSource[];
  /** How many files the walk looked at. */
  files: number;
  /** What the walk did not look into, and why (a limit reached, links not followed). */
  left: string[];
}

/**
 * The sources under `dir`, recursively, in a stable order, wherever an agent's files are in it (its
 * own tree, or a copy at any depth): each a source format knows by its path (a file of it stands
 * for the whole source, listed once), an opencode storage folder by its layout, a `*.json`,
 * `*.jsonl` or database file whose first bytes a source format recognizes, and every other
 * `*.jsonl` file. Bounded: WALK_MAX_ENTRIES entries, WALK_MAX_DEPTH levels, WALK_MAX_SNIFFED files
 * read; regular files only; symbolic links are not followed (one inside leads where the walk goes
 * anyway, one out of `dir` to what the user did not hand over), only counted.
 * Without `readHeads` no file is read: what no path claims is left out, but for `*.jsonl` files,
 * listed with no format (whoever ingests one tells its format then).
 */
export function sourcesIn(dir: string, readHeads = true): FolderSources {
  const found = new Map<string, FormatName | null>();
  let entries = 0;
  let files = 0;
  let sniffed = 0;
  const left = { entries: false, depth: 0, sniffed: 0, links: 0 };
  const add = (source: string, format: FormatName | null): void => {
    if (!found.has(source)) found.set(source, format);
  };
  const walk = (d: string, depth: number): void => {
    if (depth > WALK_MAX_DEPTH) return void left.depth++;
    const list = listDir(d);
    const folderFormat = sourceFormatOfFolder(list);
    if (folderFormat !== null) return add(d, folderFormat.name);
    for (const e of list) {
      if (++entries > WALK_MAX_ENTRIES) return void (left.entries = true);
      if (e.isSymbolicLink()) left.links++;
      if (!e.isFile() && !e.isDirectory()) continue;
      const p = path.join(d, e.name);
      const byPath = sourceOfPath(p);
      if (byPath !== null) add(byPath.source, byPath.format.name);
      else if (e.isDirectory()) {
        if (e.name !== COMPANION_DIR) walk(p, depth + 1);
      } else if (e.name.endsWith('.jsonl') && !readHeads) add(p, null);
      else if (readHeads && SNIFFED.test(e.name)) {
        const format = sniffed++ < WALK_MAX_SNIFFED ? (sourceFormatOfContent(p)?.name ?? null) : (left.sniffed++, null);
        if (format !== null) add(p, format);
        else if (e.name.endsWith('.jsonl')) add(p, null);
      }
      if (e.isFile()) files++;
    }
  };
  walk(dir, 0);
  const notes: string[] = [];
  if (left.entries) notes.push(`stopped after ${WALK_MAX_ENTRIES} entries`);
  if (left.depth > 0) notes.push(`${left.depth} folders deeper than ${WALK_MAX_DEPTH} levels not looked into`);
  if (left.sniffed > 0) notes.push(`${left.sniffed} files past the first ${WALK_MAX_SNIFFED} not read to tell their agent`);
  if (left.links > 0) notes.push(`${left.links} symbolic links not followed`);
  return { sources: [...found].map(([source, format]) => ({ source, format })), files, left: notes };
}

/**
 * The sources under `dir` as paths, no file read (sourcesIn): for following and discovery, which
 * take a source by its path (a content-told copy is the CLI's) and read thousands of transcripts
 * by their ingestion anyway.
 */
export const sourcesUnder = (dir: string): string[] => sourcesIn(dir, false).sources.map((s) => s.source);

/**
 * The source to ingest again when `file` changed: the whole source a source format's file belongs
 * to, the parent session's transcript for a Claude Code subagent file, the file itself for any
 * other `*.jsonl`; null for a file that is none of these.
 */
export function sourceOfChange(file: string): string | null {
  const source = sourceOfPath(file);
  if (source !== null) return source.source;
  return file.endsWith('.jsonl') ? ownerTranscriptOf(file) : null;
}
