import { amendableAnchor, applyAnchorRow, type ViewAnchor } from '../anchorFold';
import { contextItems, cursorOf, isAfterCursor, type Cursor } from '../context';
import { textOf, type Entry } from '../entry';
import { foldAll, foldRowOf } from '../fold';
import { jsonTextTooDeep } from '../jsonDepth';
import { editedSummaryOf } from '../pinnedContext';
import { SubstringIndex } from './substringIndex';

/**
 * What a compaction's summary kept of the history it replaced (issue 20). The tape keeps every
 * entry a compaction stands for, so the facts of that range can be checked against the summary.
 *
 * **The range** of a compaction anchor A is what the summary covers: the context items (SPEC 2.5,
 * `contextItems` in context.ts) of the session as it was just before A was appended, starting
 * after the cursor of the reconstruction anchor then in force (compaction/*, handoff/*,
 * auto_handoff/*, the last one not undone; the session start when there is none) and ending at
 * A's own cursor: the effective, non-pending
 * messages with `orderSeq` up to A's `cursorOrderSeq`, each with its tool calls and their results.
 * Entries appended after A are never in it. Error entries carry no `orderSeq`: one is in the range
 * when it was appended after that anchor, before A, and before the first message the summary does
 * not cover.
 *
 * **The summary** is the anchor's, or the last edit of it (`compaction/summary-edit`) when the
 * user replaced it: the text later contexts carry. Its "also in this range" list and pins are not
 * part of it: they put back what the summary left out, and the audit is what shows that.
 *
 * **Facts** (one per kind and normalised value, with every entry id it occurs at):
 * - `path`: the string values of the tool call arguments `path`, `file_path`, `filePath`,
 *   `notebook_path` and `paths` (a string or a list of them), the files of apply_patch headers
 *   (`*** Add|Update|Delete File: P` lines in any string of a call's input), and path-looking tokens of tool
 *   results' output (at least one `/`, a file name with an extension starting with a letter, not
 *   part of a URL; in the first 200,000 characters). A result's output is read as its text: its
 *   string leaves one per line (content blocks, not their JSON), a string that holds a JSON object
 *   or array (Codex's `{"output": …, "metadata": …}`, at most 1 MiB) read the same way, any other
 *   string as it is;
 * - `command`: a tool call's `command` or `cmd` argument (a list of strings is joined by spaces;
 *   `sh|bash|zsh -c|-lc SCRIPT`, as a list or as one string with SCRIPT quoted, is taken as SCRIPT);
 * - `error`: the first non-empty line of an error entry's message and of a tool result with
 *   status error, after the header lines a shell tool puts before the output (`Exit code N` or `Exit code: N`,
 *   `Process exited with code N`, `Wall time: …`, `Chunk ID: …`, `Original token count: …`,
 *   `Output:`), unless nothing else is there;
 * - `request`: the first non-empty line of each user message;
 * - `tool`: each tool call's name.
 *
 * **Matching** is on normalised text: lower case, every run of whitespace one space, trimmed; the
 * summary's first 262,144 characters (UTF-16 code units) after that.
 * "Occurs as a word" means not directly preceded or followed by a letter, digit or underscore
 * (substringIndex.ts: the summary is indexed once, so the audit is linear in facts + summary).
 * - a path is in the summary when its full path or its file name (after the last `/` or `\`)
 *   occurs as a word;
 * - a command when its head occurs as a word: its first line up to and including the second
 *   word after the program that does not start with `-`, stopping before a pipe or redirection
 *   (`|`, `2>&1`, `>out`), all of it when there is none; so `bd close x-1 --reason=…` needs
 *   `bd close x-1`, `git commit -m "fix parser"` needs `git commit -m "fix`, `mix test 2>&1 | tail`
 *   needs `mix test`, `ls` needs the word `ls` (issue 33: a program and subcommand alone name no
 *   one command);
 * - a tool name when it occurs as a word;
 * - an error or a request when its line occurs.
 */

export type FactKind = 'path' | 'command' | 'error' | 'request' | 'tool';
export const FACT_KINDS: readonly FactKind[] = ['path', 'command', 'error', 'request', 'tool'];

export interface AuditFact {
  kind: FactKind;
  value: string;
  /** Sorted, unique. */
  entryIds: number[];
  inSummary: boolean;
}

export interface CompactionAudit {
  anchorEntryId: number;
  /** The first and last entry id of the range; both null when it holds no entry. */
  range: { from: number | null; to: number | null };
  facts: AuditFact[];
  totals: Record<FactKind, { facts: number; inSummary: number }>;
}

export class CompactionAuditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompactionAuditError';
  }
}

export const isCompactionAnchor = (e: Entry): boolean => e.kind === 'anchor' && e.name.startsWith('compaction/');

/** Every compaction anchor of a session, in view order. */
export const compactionAnchors = (entries: readonly Entry[]): Entry[] => entries.filter(isCompactionAnchor);

export const normalise = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

const firstLine = (s: string): string =>
  s
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? '';
/** A failed tool's first line of what it said, past a shell tool's header (its first line when that is all). */
function errorLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim());
  return lines.find((l) => l !== '' && !SHELL_HEADER.test(l)) ?? firstLine(output);
}
const fileName = (p: string): string =>
  p
    .split(/[/\\]/)
    .filter((s) => s !== '')
    .pop() ?? '';

// A pipe or a redirection: what follows it only handles the command's input or output. (`&&`, `;`
// and the like count as words: the command after them is the one that matters, as in `cd x && make`.)
const SHELL_PLUMBING = /^(?:\|&?|\d*[<>].*|&>.*)$/;

/**
 * What names a command: its first line up to and including the second word after the program that
 * is not an option (does not start with `-`), stopping before a pipe or a redirection (`|`, `2>&1`,
 * `>out`); all of it when it has no such word.
 */
function commandHead(line: string): string {
  const words = line.split(' ');
  let operands = 0;
  for (let i = 1; i < words.length; i++) {
    if (SHELL_PLUMBING.test(words[i])) return words.slice(0, i).join(' ');
    if (!words[i].startsWith('-') && ++operands === 2) return words.slice(0, i + 1).join(' ');
  }
  return line;
}

function inSummary(kind: FactKind, value: string, summary: SubstringIndex): boolean {
  const v = normalise(value);
  switch (kind) {
    case 'path':
      return summary.occursAsWord(v) || summary.occursAsWord(normalise(fileName(value)));
    case 'command':
      return summary.occursAsWord(commandHead(normalise(firstLine(value))));
    case 'tool':
      return summary.occursAsWord(v);
    case 'error':
    case 'request':
      return v !== '' && summary.includes(v);
  }
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'notebook_path', 'paths'];
// At least one directory, a file name with an extension; the lookbehind keeps URLs and parts of
// longer tokens out (a match cannot start after `/`, `:`, `.` or a word character).
const PATH_TOKEN = /(?<![\w:/.~-])(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/-])/g;
// A result's first part is enough to find the paths it names; a huge output is not scanned whole.
const SCAN_LIMIT = 200_000;
const SHELLS = new Set(['sh', 'bash', 'zsh']);
// `bash -lc 'npm test'` as one string: the script, single- or double-quoted, is the command.
const SHELL_STRING = /^(?:\S*\/)?(?:ba|z)?sh\s+-l?c\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)")$/s;
// Lines a shell tool writes before what the command printed (Codex's shell and exec outputs).
const SHELL_HEADER = /^(?:exit code:? -?\d+|process exited with code -?\d+|wall time: .*|chunk id: .*|original token count: .*|output:)$/i;
// A summary is matched on its first part: the index of it takes about 120 bytes a character (4x an
// edited summary's most, far more than a model writes; an ingested one is not bounded).
const SUMMARY_LIMIT = 256 * 1024;
// A JSON text is read as its leaves only up to this size; a bigger one is scanned as it is.
const JSON_TEXT_LIMIT = 1 << 20;

// Codex edits files with apply_patch, whose input (a custom tool's text, or a shell command's
// argument) names each file on a header line.
const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

function pathArguments(input: unknown): string[] {
  const out = [...outputText(input).matchAll(PATCH_HEADER)].map((m) => m[1].trim()).filter((p) => p !== '');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return out;
  for (const key of PATH_KEYS) {
    const v = (input as Record<string, unknown>)[key];
    for (const p of Array.isArray(v) ? v : [v]) if (typeof p === 'string' && p.trim() !== '') out.push(p.trim());
  }
  return out;
}

function commandArgument(input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const o = input as Record<string, unknown>;
  const v = o.command ?? o.cmd;
  if (typeof v === 'string') {
    const script = SHELL_STRING.exec(v.trim());
    const command = (script === null ? v : (script[1] ?? script[2])).trim();
    return command === '' ? null : command;
  }
  if (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string')) {
    const words = v as string[];
    if (words.length === 3 && SHELLS.has(fileName(words[0])) && (words[1] === '-c' || words[1] === '-lc')) return words[2].trim() || null;
    return words.join(' ').trim() || null;
  }
  return null;
}

/** A string holding a JSON object or array, parsed; null for any other string. */
function jsonInText(text: string): unknown {
  const t = text.trimStart();
  if ((t[0] !== '{' && t[0] !== '[') || t.length > JSON_TEXT_LIMIT || jsonTextTooDeep(t) !== null) return null;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** A tool output's words: its string leaves, so a transcript's content blocks read as their text, not as JSON. */
function outputText(value: unknown): string {
  if (typeof value === 'string') {
    const parsed = jsonInText(value);
    return parsed === null ? value : outputText(parsed);
  }
  if (Array.isArray(value))
    return value
      .map(outputText)
      .filter((s) => s !== '')
      .join('\n');
  if (typeof value === 'object' && value !== null)
    return Object.values(value)
      .map(outputText)
      .filter((s) => s !== '')
      .join('\n');
  return '';
}

class FactList {
  private readonly byKey = new Map<string, { kind: FactKind; value: string; ids: Set<number> }>();
  add(kind: FactKind, value: string, entryId: number): void {
    if (value === '') return;
    const key = `${kind}\u0000${normalise(value)}`;
    const fact = this.byKey.get(key) ?? { kind, value, ids: new Set<number>() };
    fact.ids.add(entryId);
    this.byKey.set(key, fact);
  }
  facts(summary: string): AuditFact[] {
    // Indexed once: each fact is then a lookup in time of its own length.
    const s = new SubstringIndex(normalise(summary).slice(0, SUMMARY_LIMIT));
    return [...this.byKey.values()].map((f) => ({
      kind: f.kind,
      value: f.value,
      entryIds: [...f.ids].sort((a, b) => a - b),
      inSummary: inSummary(f.kind, f.value, s),
    }));
  }
}

/** The ids of the entries in the range of compaction `anchor` (see the rule above), ascending. */
function rangeOf(entries: readonly Entry[], anchor: Entry): number[] {
  const before = entries.filter((e) => e.entryId < anchor.entryId);
  const anchors: ViewAnchor[] = [];
  for (const e of before) applyAnchorRow(anchors, e);
  const inForce = amendableAnchor(anchors);
  const previousEntry = inForce === null ? undefined : before.find((e) => e.entryId === inForce.entryId);
  const previous: Cursor | null = previousEntry === undefined ? null : cursorOf(previousEntry);
  const previousEntryId = previousEntry?.entryId ?? 0;
  const view = foldAll(before.map(foldRowOf), { includePending: false });
  const own = cursorOf(anchor);
  const ids: number[] = [];
  let firstUncovered = anchor.entryId;
  // contextItems yields each message followed by its calls and results: they share its coverage.
  let covered = false;
  for (const item of contextItems(view, previous)) {
    if (item.kind === 'message') {
      covered = !isAfterCursor(item.message, own);
      if (covered) ids.push(item.message.entryId);
      else firstUncovered = Math.min(firstUncovered, item.message.entryId);
    } else if (covered) {
      if (item.kind === 'call' || item.kind === 'interrupted') ids.push(item.call.entryId);
      else ids.push(item.result.entryId);
    }
  }
  for (const e of before) if (e.kind === 'error' && e.entryId > previousEntryId && e.entryId < firstUncovered) ids.push(e.entryId);
  return ids.sort((a, b) => a - b);
}

/**
 * The audit of the compaction anchor `anchorEntryId` of a session, from its entries in view order
 * (full payloads). Throws CompactionAuditError when that entry is not a compaction anchor.
 */
export function auditCompaction(entries: readonly Entry[], anchorEntryId: number): CompactionAudit {
  const anchor = entries.find((e) => e.entryId === anchorEntryId);
  if (anchor === undefined || !isCompactionAnchor(anchor)) {
    const known = compactionAnchors(entries).map((a) => `${a.name}#${a.entryId}`);
    throw new CompactionAuditError(`entry ${anchorEntryId} is not a compaction anchor; compactions: ${known.join(', ') || 'none'}`);
  }
  const byId = new Map(entries.map((e) => [e.entryId, e]));
  const anchors: ViewAnchor[] = [];
  for (const e of entries) applyAnchorRow(anchors, e);
  const state = anchor.payload.state as { summary?: unknown };
  const summary =
    editedSummaryOf(anchors.find((a) => a.entryId === anchorEntryId)?.amendments, (id) => byId.get(id)) ??
    (typeof state.summary === 'string' ? state.summary : '');
  const ids = rangeOf(entries, anchor);
  const list = new FactList();
  for (const id of ids) {
    const e = byId.get(id);
    if (e === undefined) continue;
    const p = e.payload;
    if (e.kind === 'message' && p.role === 'user') list.add('request', firstLine(textOf(p.content)), id);
    else if (e.kind === 'tool_call') {
      list.add('tool', e.name, id);
      for (const path of pathArguments(p.input)) list.add('path', path, id);
      const command = commandArgument(p.input);
      if (command !== null) list.add('command', command, id);
    } else if (e.kind === 'tool_result') {
      const output = outputText(p.output);
      for (const m of output.slice(0, SCAN_LIMIT).matchAll(PATH_TOKEN)) list.add('path', m[0], id);
      if (p.status === 'error') list.add('error', errorLine(output), id);
    } else if (e.kind === 'error') list.add('error', firstLine(textOf(p.message)), id);
  }
  const facts = list.facts(summary);
  const totals = Object.fromEntries(FACT_KINDS.map((k) => [k, { facts: 0, inSummary: 0 }])) as CompactionAudit['totals'];
  for (const f of facts) {
    totals[f.kind].facts++;
    if (f.inSummary) totals[f.kind].inSummary++;
  }
  return { anchorEntryId, range: { from: ids[0] ?? null, to: ids.length === 0 ? null : ids[ids.length - 1] }, facts, totals };
}

/** The audit of every compaction of a session, in view order. */
export const auditCompactions = (entries: readonly Entry[]): CompactionAudit[] => compactionAnchors(entries).map((a) => auditCompaction(entries, a.entryId));
