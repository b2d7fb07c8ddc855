// Git deadlines of workspace checkpoints (issue 33): workspaces of N small source files, N up to
// the file limit; the first checkpoint of each, then a restore of every file (the workspace's
// files deleted, planned and applied back), against the deadline their git runs get
// (gitDeadlineMs) and against the fixed 60 s every run had before, side by side. Each run must end
// well inside its deadline: the ratios time/deadline say by how much. The ratio uses the whole
// operation's time (several git runs and our own stats) over the smallest deadline of its large
// runs (N files, no bytes), so each run's own ratio is lower. The default is one short size;
// CHECKPOINT_DEADLINE_FILES=10000,30000 (a list) measures others. Loaded machines are the point:
// the load average is printed beside the figures.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CheckpointStore, DEFAULT_CHECKPOINT_LIMITS } from '../src/agent/checkpoints/checkpointStore';
import { gitDeadlineMs } from '../src/agent/checkpoints/shadowGit';
import { round, targets, tempDir } from './common';

const FILES_PER_FOLDER = 100;
const FIXED_DEADLINE_MS = 60_000;
/** Inside its deadline with room to spare: a machine twice as loaded still finishes. */
const TARGET_RATIO = 0.5;

const sizes = (process.env.CHECKPOINT_DEADLINE_FILES ?? '5000').split(',').map((n) => {
  const files = Number(n);
  if (!Number.isInteger(files) || files <= 0 || files > DEFAULT_CHECKPOINT_LIMITS.maxFiles)
    throw new Error(`CHECKPOINT_DEADLINE_FILES: ${n} is not a number of files up to the limit (${DEFAULT_CHECKPOINT_LIMITS.maxFiles})`);
  return files;
});

const fileOf = (i: number): string =>
  `src/mod${String(Math.floor(i / FILES_PER_FOLDER)).padStart(3, '0')}/file${String(i % FILES_PER_FOLDER).padStart(3, '0')}.ts`;

/** A small source file, different for every file so nothing deduplicates. */
const sourceOf = (i: number): string =>
  [
    `// module ${i}`,
    `export function compute${i}(input: number): number {`,
    `  return input * ${(i * 7919) % 1000} - ${i};`,
    '}',
    `export const NAME_${i} = 'file-${i}-${(i * 2654435761) % 4294967296}';`,
    '',
  ].join('\n');

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function measure(files: number) {
  const dir = tempDir();
  const ws = path.join(dir, 'ws');
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const file = path.join(ws, fileOf(i));
    if (i % FILES_PER_FOLDER === 0) fs.mkdirSync(path.dirname(file), { recursive: true });
    const source = sourceOf(i);
    bytes += Buffer.byteLength(source);
    fs.writeFileSync(file, source);
  }
  const loadBefore = os.loadavg()[0];
  const store = await CheckpointStore.open(path.join(dir, 'store'), ws);
  const first = await timed(() => store.snapshot());
  if (first.value.fileCount !== files) throw new Error(`the first checkpoint holds ${first.value.fileCount} files`);
  fs.rmSync(path.join(ws, 'src'), { recursive: true });
  const plan = await timed(() => store.planRestore(first.value.checkpointId));
  if (plan.value.created.length !== files) throw new Error(`the restore would create ${plan.value.created.length} files`);
  const apply = await timed(() => store.applyRestore(plan.value));
  if (!fs.existsSync(path.join(ws, fileOf(files - 1)))) throw new Error('the restore did not bring the files back');
  const loadAfter = os.loadavg()[0];
  fs.rmSync(dir, { recursive: true, force: true });

  const deadline = gitDeadlineMs({ files });
  const restoreMs = plan.ms + apply.ms;
  return {
    files,
    MiB: round(bytes / 1024 / 1024, 1),
    loadAverage: { before: round(loadBefore, 1), after: round(loadAfter, 1) },
    deadlineMs: { ofAFileRun: deadline, withTheBytes: gitDeadlineMs({ files, bytes }), fixedBefore: FIXED_DEADLINE_MS },
    ms: { firstCheckpoint: round(first.ms), restorePlan: round(plan.ms), restoreApply: round(apply.ms) },
    ratios: {
      firstCheckpointOverDeadline: round(first.ms / deadline, 3),
      restoreOverDeadline: round(restoreMs / deadline, 3),
      firstCheckpointOverFixed60s: round(first.ms / FIXED_DEADLINE_MS, 3),
      restoreOverFixed60s: round(restoreMs / FIXED_DEADLINE_MS, 3),
    },
    met: first.ms / deadline <= TARGET_RATIO && restoreMs / deadline <= TARGET_RATIO,
  };
}

async function main(): Promise<void> {
  const runs = [];
  for (const files of sizes) {
    runs.push(await measure(files));
    // The large sizes take minutes: each one's figures as soon as they are known.
    process.stderr.write(`${JSON.stringify(runs.at(-1))}\n`);
  }
  console.log(
    JSON.stringify({
      machine: { cpus: os.cpus().length },
      limits: { maxFiles: DEFAULT_CHECKPOINT_LIMITS.maxFiles, deadlineAtTheLimitMs: gitDeadlineMs({ files: DEFAULT_CHECKPOINT_LIMITS.maxFiles }) },
      note: 'ours: CheckpointStore with gitDeadlineMs per git run; before: 60 s for every run. Ratios: the whole operation over the deadline of one run over N files (a bound on the ratio of each run); restore = plan + apply of N created files',
      runs: runs.map(({ met: _met, ...run }) => run),
      targets: targets(Object.fromEntries(runs.map((r) => [`${r.files} files: first checkpoint and restore each <= ${TARGET_RATIO} of the deadline`, r.met]))),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
