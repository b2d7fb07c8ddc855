// Agent blame's gathering (src/blame) on a tape of 100 sessions of 2,000 entries (read_file calls,
// messages) and one session that wrote a 5,000-line file and then changed one line of it in each of
// 499 more edits: the first look at the tape (the edit index), the look after one more edit is
// appended, and the blame of the file (index warm: gathering its 500 edits, the attribution, the
// origins). Baselines, run side by side: reading every entry of the tape and asking each call for
// its edits (what the index spares a look), and building the index again after the append (what
// reading on from each session's last entry spares). Heap: what the index keeps per edit.
import { TapeBlame } from '../src/blame/tapeBlame';
import { editsOfEntry } from '../src/tape/blame/editCalls';
import { TapeStore } from '../src/store/tapeStore';
import { toolCallEntry, toolResultEntry } from '../src/tape/turnEntries';
import type { NewEntry } from '../src/tape/entry';
import type { RowTuple } from '../src/store/rowTuple';
import { median, random, round, sessionRows, targets, time } from './common';

const SESSIONS = 100;
const PER_SESSION = 2000;
const LINES = 5000;
const EDITS = 500;
const ROUNDS = 5;
const WS = '/bench/ws';
const FILE = 'src/big.ts';

/** The editing session's entries and the file as its edits leave it. */
function edits(): { entries: NewEntry[]; text: string } {
  const turn = { sessionId: 'editor', turnId: 't' };
  const lines = Array.from({ length: LINES }, (_, i) => `const line${i} = ${i};`);
  const entries: NewEntry[] = [];
  const call = (input: unknown) => {
    const id = `c${entries.length}`;
    entries.push(toolCallEntry(turn, `m${id}`, id, 'apply_edit', input), toolResultEntry(turn, `m${id}`, id, 'apply_edit', { status: 'ok', output: 'ok' }));
  };
  call({ path: FILE, newText: `${lines.join('\n')}\n` });
  const next = random(36);
  for (let e = 1; e < EDITS; e++) {
    const at = Math.floor(next() * LINES);
    const newText = `const line${at} = ${e * LINES + at}; // edit ${e}`;
    call({ path: FILE, oldText: lines[at], newText });
    lines[at] = newText;
  }
  return { entries, text: `${lines.join('\n')}\n` };
}

const heap = (): number => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

async function main(): Promise<void> {
  const rows: RowTuple[] = [];
  for (let s = 0; s < SESSIONS; s++) rows.push(...sessionRows(`s${s}`, PER_SESSION));
  const store = await TapeStore.inMemory(rows);
  const { entries, text } = edits();
  await store.appendMany('editor', entries);

  const fresh = () => new TapeBlame(store, { workspaceRoot: WS });
  const firstLook = round(median(Array.from({ length: ROUNDS }, () => time(() => fresh().touches(FILE)))));
  const readEverything = round(
    median(
      Array.from({ length: ROUNDS }, () =>
        time(() => {
          for (const e of store.entries(null)) if (e.kind === 'tool_call') editsOfEntry('agent-tape', e);
        }),
      ),
    ),
  );

  // Twenty indexes kept alive at once, so the figure per edit is not lost in the heap's noise.
  const before = heap();
  const kept = Array.from({ length: 20 }, () => {
    const b = fresh();
    b.touches(FILE);
    return b;
  });
  const indexBytes = (heap() - before) / kept.length;
  const blame = kept[0];

  const lastIds = entries.length;
  const appended = async (i: number) => {
    const turn = { sessionId: 'editor', turnId: 't' };
    const id = `late${i}`;
    await store.appendMany('editor', [
      toolCallEntry(turn, `m${id}`, id, 'apply_edit', { path: `src/late${i}.ts`, newText: 'x\n' }),
      toolResultEntry(turn, `m${id}`, id, 'apply_edit', { status: 'ok', output: 'ok' }),
    ]);
  };
  const afterAppend: number[] = [];
  const rebuild: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await appended(i);
    afterAppend.push(time(() => blame.touches(`src/late${i}.ts`)));
    rebuild.push(time(() => fresh().touches(`src/late${i}.ts`)));
  }

  const blames: number[] = [];
  let ranges = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    ranges = (await blame.blame(FILE, text)).length;
    blames.push(performance.now() - t0);
  }
  const blameMs = round(median(blames));
  await store.close();

  const figures = {
    firstLook: { current: firstLook, baseline: readEverything },
    lookAfterAppend: { current: round(median(afterAppend)), baseline: round(median(rebuild)) },
  };
  const ratios = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round(v.baseline / v.current, 1)])) as Record<keyof typeof figures, number>;
  console.log(
    JSON.stringify({
      unit: 'ms, median of rounds; ratios are baseline / current',
      tape: { sessions: SESSIONS + 1, entries: SESSIONS * PER_SESSION + lastIds + 1, fileLines: LINES, edits: EDITS },
      rounds: ROUNDS,
      ms: figures,
      ratios,
      blameMs,
      blameRanges: ranges,
      indexHeapBytesPerEdit: round(indexBytes / EDITS, 0),
      targets: targets({
        'blame of a 5,000-line file touched by 500 edits <= 200 ms': blameMs <= 200,
        'the look after an append >= 10x faster than building the index again': ratios.lookAfterAppend >= 10,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
