import type { BlameRange } from '../../blame/tapeBlame';
import { FORMAT_NAMES } from '../../ingest/agents';
import { OWN_AGENT } from '../../tape/usage/usageStats';
import { BIDI_FORMATTING, unicodeEscape } from '../../tape/unicodeEscape';
import { agentLabel } from '../agentLabel';
import { timeAgo } from './timeAgo';

/** Lines `start`..`end` of an editor, from 0 as VS Code counts them, inclusive. */
export interface LineSpan {
  start: number;
  end: number;
}

/** A faint note after the first line of a run of lines one origin wrote. */
export interface EndOfLineNote {
  line: number;
  agent: string;
  text: string;
}

/**
 * A gutter bar's colour per agent: an image takes no theme colour, so these are mid tones that
 * read on dark and light themes alike. The agents Agent Tape knows have one each; another name
 * gets one by its hash, the same in every window.
 */
const PALETTE = ['#3794ff', '#d97757', '#10a37f', '#c586c0', '#4ec9b0', '#8e75b2', '#e5c07b', '#f14c4c', '#6a9955', '#d16d9e'];
const KNOWN = [OWN_AGENT, ...FORMAT_NAMES];

export function agentColour(agent: string): string {
  const known = KNOWN.indexOf(agent);
  if (known >= 0) return PALETTE[known % PALETTE.length];
  let hash = 0;
  for (const c of agent) hash = (hash * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/** The gutter's marks: per agent, the lines it wrote, so each agent's bar has its own colour. */
export function gutterSpans(ranges: readonly BlameRange[]): Map<string, LineSpan[]> {
  const byAgent = new Map<string, LineSpan[]>();
  for (const r of ranges) {
    if (r.origin === null) continue;
    const spans = byAgent.get(r.origin.agent) ?? [];
    spans.push({ start: r.startLine - 1, end: r.endLine - 1 });
    byAgent.set(r.origin.agent, spans);
  }
  return byAgent;
}

const NOTE_CHARS = 80;

/**
 * The end-of-line notes (`Claude Code · turn 3 · 3 h ago`): one on the first line of each range
 * an agent wrote, as GitLens notes a commit once per hunk, so a long run of lines stays readable.
 * A note is decoration text, not Markdown; bidirectional formatting from the tape is shown
 * escaped, not applied, so it cannot reorder the code beside it.
 */
export function endOfLineNotes(ranges: readonly BlameRange[], now: number): EndOfLineNote[] {
  return ranges.flatMap((r) => {
    if (r.origin === null) return [];
    const words = [agentLabel(r.origin.agent), ...(r.origin.turn === null ? [] : [`turn ${r.origin.turn}`]), timeAgo(r.origin.at, now)];
    const text = words.join(' · ').replace(BIDI_FORMATTING, unicodeEscape);
    return [{ line: r.startLine - 1, agent: r.origin.agent, text: text.length <= NOTE_CHARS ? text : `${text.slice(0, NOTE_CHARS - 1)}…` }];
  });
}

/** How many lines of the file agents wrote (the status bar's count). */
export function agentLineCount(ranges: readonly BlameRange[]): number {
  return ranges.reduce((n, r) => (r.origin === null ? n : n + r.endLine - r.startLine + 1), 0);
}

/** The range holding line `line` (from 0, as an editor's position counts). */
export function rangeAtLine(ranges: readonly BlameRange[], line: number): BlameRange | undefined {
  const wanted = line + 1;
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid];
    if (r.endLine < wanted) lo = mid + 1;
    else if (r.startLine > wanted) hi = mid - 1;
    else return r;
  }
  return undefined;
}
