// What agent blame costs in the editor once a file's blame is built, on a 5,000-line file that 500
// apply_edit calls over 50 turns wrote: the hover of a line (find its range, its actions, its
// Markdown), and the marks of the whole file (end-of-line notes, gutter spans, the status count).
// Against the baseline of a hover that blames the file anew, as it would without the per-version
// blame LiveBlame keeps, run side by side.
import * as fs from 'fs';
import { TapeBlame } from '../src/blame/tapeBlame';
import { blameActions } from '../src/extension/blame/blameActions';
import { blameHoverMarkdown } from '../src/extension/blame/blameHover';
import { agentLineCount, endOfLineNotes, gutterSpans, rangeAtLine } from '../src/extension/blame/blameMarks';
import { TapeStore } from '../src/store/tapeStore';
import type { NewEntry } from '../src/tape/entry';
import { median, random, round, targets, tempDir, time } from './common';

const LINES = 5000;
const EDITS = 500;
const PER_TURN = 10;
const HOVERS = 1000;
const ROUNDS = 7;
const FILE = 'src/big.ts';

const lineOf = (i: number): string => `export const value${i} = ${i}; // line ${i}`;

/** The session's entries and the file as its edits left it: a create, then edits of single lines spread over the file. */
function session(): { entries: NewEntry[]; text: string } {
  const lines = Array.from({ length: LINES }, (_, i) => lineOf(i));
  const next = random(36);
  const entries: NewEntry[] = [];
  const call = (n: number, input: object): void => {
    const id = `edit-${n}`;
    entries.push(
      { kind: 'tool_call', name: 'apply_edit', payload: { messageId: `a${n}`, toolCallId: id, name: 'apply_edit', input } },
      { kind: 'tool_result', name: 'apply_edit', payload: { messageId: `a${n}`, toolCallId: id, status: 'ok', output: 'done' } },
    );
  };
  for (let n = 0; n < EDITS; n++) {
    if (n % PER_TURN === 0) {
      const turn = n / PER_TURN + 1;
      entries.push({
        kind: 'message',
        name: 'message/user',
        payload: { messageId: `u${turn}`, role: 'user', status: 'sent', orderSeq: turn * 100, content: `Turn ${turn}: tidy the values` },
      });
    }
    if (n === 0) {
      call(n, { path: FILE, newText: `${lines.join('\n')}\n` });
      continue;
    }
    const at = Math.floor(next() * LINES);
    const old = lines[at];
    lines[at] = `${old} // edited by call ${n}`;
    call(n, { path: FILE, oldText: old, newText: lines[at] });
  }
  return { entries, text: `${lines.join('\n')}\n` };
}

async function msAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const { entries, text } = session();
  const store = await TapeStore.inMemory();
  await store.appendMany('bench-blame', entries);
  const workspaceRoot = fs.realpathSync(tempDir());
  const blame = new TapeBlame(store, { workspaceRoot, checkpointsDir: null });
  const context = { positionOf: (_s: string, id: number) => id, canRerun: true };
  const now = Date.now();

  const blameRuns: number[] = [];
  for (let r = 0; r < ROUNDS; r++) blameRuns.push(await msAsync(() => blame.blame(FILE, text)));
  const ranges = await blame.blame(FILE, text);

  const next = random(7);
  const lines = Array.from({ length: HOVERS }, () => Math.floor(next() * LINES));
  const hover = (line: number): string | undefined => {
    const origin = rangeAtLine(ranges, line)?.origin;
    return origin == null ? undefined : blameHoverMarkdown(origin, blameActions(origin, context), now);
  };
  const hoverRuns = lines.map((line) => time(() => hover(line)));
  // The baseline: each hover blames the file first (a few hovers only: each costs a whole blame).
  const baselineRuns: number[] = [];
  for (const line of lines.slice(0, ROUNDS)) baselineRuns.push(await msAsync(async () => hover((await blame.blame(FILE, text)) && line)));
  const marksMs = round(median(Array.from({ length: ROUNDS }, () => time(() => [endOfLineNotes(ranges, now), gutterSpans(ranges), agentLineCount(ranges)]))));
  const agentLines = agentLineCount(ranges);
  await store.close();

  const hoverMedian = round(median(hoverRuns), 4);
  const hoverMax = round(Math.max(...hoverRuns), 3);
  const baselineMedian = round(median(baselineRuns));
  console.log(
    JSON.stringify({
      unit: 'ms, median of rounds; the ratio is baseline / current',
      file: { lines: LINES, edits: EDITS, turns: EDITS / PER_TURN, ranges: ranges.length, agentLines },
      rounds: ROUNDS,
      ms: { blame: round(median(blameRuns)), hover: { current: hoverMedian, max: hoverMax, baseline: baselineMedian }, marks: marksMs },
      ratios: { hover: round(baselineMedian / hoverMedian, 0) },
      targets: targets({
        'every line written by the agent': agentLines === LINES,
        'hover <= 50 ms once the blame is built (the slowest of 1,000)': hoverMax <= 50,
        'marks of the whole file <= 50 ms': marksMs <= 50,
        'blame of the file <= 200 ms': median(blameRuns) <= 200,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
