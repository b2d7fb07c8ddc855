// The step replay on a 100k-entry session: what one stop costs (the move, the entry at the cursor
// and the folded view there) for a step and a step back at random positions, against the baseline
// of refolding the session from its start at each position. Also the launch, a far jump, the
// context and projections at a position (the Variables a stop may show), and what copying a fold
// state at the head costs, which is why the cursor does not keep cloned fold checkpoints.
import { ReplayCursor } from '../src/replay/cursor';
import { readerOf } from '../src/store/lineage';
import { TapeStore } from '../src/store/tapeStore';
import { foldAll, newFoldState, applyRows } from '../src/tape/fold';
import { median, round, sessionRows, targets, time } from './common';

const ENTRIES = 100_000;
const SAMPLES = 200;
const BASELINE_SAMPLES = 30;
const S = 's';
const TARGET_MS = 20;

/** Deterministic positions in [2, ENTRIES - 1]. */
function positions(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return 2 + (s % (ENTRIES - 2));
  });
}

function stats(xs: number[]): { median: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: round(median(s)), p95: round(s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]), max: round(s[s.length - 1]) };
}

async function main(): Promise<void> {
  const store = await TapeStore.inMemory(sessionRows(S, ENTRIES, 200));
  const reader = readerOf(store);
  let cursor!: ReplayCursor;
  const launchMs = time(() => {
    cursor = new ReplayCursor(reader, S);
    cursor.viewAt(0);
  });

  /** One stop as the debugger shows it: the entry at the cursor and the view there. */
  const show = (): void => {
    cursor.entryAt(0);
    cursor.viewAt(0);
  };
  const jump = (to: number): number => {
    const ms = time(() => {
      cursor.breakpoints.setLines(S, [to]);
      if (to > cursor.stack[0].position) cursor.continue();
      else if (to < cursor.stack[0].position) cursor.reverseContinue();
      show();
    });
    // A far jump refolds and leaves garbage; collected here, its pause is not charged to the step after it.
    (globalThis as { gc?: () => void }).gc?.();
    return ms;
  };

  const step: number[] = [];
  const stepBack: number[] = [];
  const jumps: number[] = [];
  for (const p of positions(SAMPLES, 7)) {
    jumps.push(jump(p));
    step.push(time(() => (cursor.next(), show())));
    stepBack.push(time(() => (cursor.back(), show())));
    stepBack.push(time(() => (cursor.back(), show())));
  }

  // With the Context and Projections scopes open: the first time at a far position, then after a step.
  const contextFirst: number[] = [];
  const projectionsFirst: number[] = [];
  const context: number[] = [];
  const projections: number[] = [];
  for (const p of positions(20, 11)) {
    jump(p);
    contextFirst.push(time(() => cursor.contextAt(0)));
    projectionsFirst.push(time(() => cursor.projectionsAt(0)));
    cursor.next();
    context.push(time(() => cursor.contextAt(0)));
    projections.push(time(() => cursor.projectionsAt(0)));
  }

  // The baseline: the state at a position refolded from the session's first entry (rows cached, as the cursor's are).
  const rows = store.foldRows(S, 0);
  const refold: number[] = [];
  for (const p of positions(BASELINE_SAMPLES, 7)) {
    refold.push(
      time(() => {
        store.getEntry(S, p);
        foldAll(rows.slice(0, p), { includePending: true });
      }),
    );
  }

  const state = newFoldState({ includePending: true });
  applyRows(state, rows);
  const cloneMs = median([0, 1, 2].map(() => time(() => structuredClone(state))));

  const stepStats = stats(step);
  const backStats = stats(stepBack);
  const baseline = stats(refold);
  console.log(
    JSON.stringify({
      entries: ENTRIES,
      samples: { step: step.length, stepBack: stepBack.length, baseline: refold.length },
      launchMs: round(launchMs),
      stepMs: stepStats,
      stepBackMs: backStats,
      refoldFromStartMs: baseline,
      ratio: { refoldOverStep: round(baseline.median / stepStats.median, 1), refoldOverStepBack: round(baseline.median / backStats.median, 1) },
      jumpToRandomPositionMs: stats(jumps),
      contextAfterStepMs: stats(context),
      projectionsAfterStepMs: stats(projections),
      contextFirstAfterJumpMs: stats(contextFirst),
      projectionsFirstAfterJumpMs: stats(projectionsFirst),
      structuredCloneOfFoldStateAtHeadMs: round(cloneMs),
      targets: targets({
        [`step p95 <= ${TARGET_MS} ms`]: stepStats.p95 <= TARGET_MS,
        [`step back p95 <= ${TARGET_MS} ms`]: backStats.p95 <= TARGET_MS,
        [`step max <= ${TARGET_MS} ms`]: stepStats.max <= TARGET_MS,
        [`step back max <= ${TARGET_MS} ms`]: backStats.max <= TARGET_MS,
      }),
    }),
  );
  await store.close();
}

void main();
