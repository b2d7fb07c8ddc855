// Workspace checkpoints (issue 19): a 10,000-file workspace (small source files in 100 folders);
// the first checkpoint (<= 5 s), a checkpoint with 5 changed files after it (<= 300 ms), a restore
// of 5 files, planned and applied (<= 300 ms), and the store's size on disk after 100 turns that
// each change 5 small files, two checkpoints a turn as the loop takes them. The baseline, in the
// same run on the same workspace, is the shadow git other agents use: `git add -A && git commit`
// in a separate git directory with git's defaults (loose objects), a restore being a checkpoint,
// `git diff --name-status` and `git reset --hard`.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CheckpointStore } from '../src/agent/checkpoints/checkpointStore';
import { median, round, targets, tempDir } from './common';

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const CHANGED = 5;
const ROUNDS = 21;
const TURNS = 100;

const TARGET_FIRST_MS = 5_000;
const TARGET_CHECKPOINT_MS = 300;
const TARGET_RESTORE_MS = 300;

const fileOf = (i: number): string =>
  `src/mod${String(Math.floor(i / FILES_PER_FOLDER)).padStart(3, '0')}/file${String(i % FILES_PER_FOLDER).padStart(3, '0')}.ts`;

/** A small source file, different for every file so nothing deduplicates. */
const sourceOf = (i: number, version = 0): string =>
  [
    `// module ${i}, version ${version}`,
    `import { helper${i % 17} } from '../shared/helpers';`,
    '',
    `export function compute${i}(input: number): number {`,
    `  const scaled = input * ${(i * 7919) % 1000} + ${version};`,
    `  return helper${i % 17}(scaled) - ${i};`,
    '}',
    '',
    `export const NAME_${i} = 'file-${i}-${(i * 2654435761) % 4294967296}';`,
    '',
  ].join('\n');

/** The five files a round changes: in five different folders, different ones each round. */
const changedIn = (round: number): number[] => Array.from({ length: CHANGED }, (_, k) => (round * 37 + k * 2003) % (FOLDERS * FILES_PER_FOLDER));

/** Disk usage (allocated blocks, as du counts them) and apparent bytes of a directory, and its files. */
function sizeOf(dir: string): { diskBytes: number; bytes: number; files: number } {
  let diskBytes = 0;
  let bytes = 0;
  let files = 0;
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      const st = fs.lstatSync(p);
      diskBytes += st.blocks * 512;
      if (entry.isDirectory()) walk(p);
      else {
        bytes += st.size;
        files++;
      }
    }
  };
  walk(dir);
  return { diskBytes, bytes, files };
}

const mib = (bytes: number): number => round(bytes / 1024 / 1024, 2);

/** The naive shadow git: a git directory of its own on the workspace, git's defaults (identity aside), one process per command as its users run it. */
class NaiveShadowGit {
  constructor(
    private readonly gitDir: string,
    private readonly workTree: string,
  ) {}

  private git(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgSign=false', ...args], {
        cwd: this.workTree,
        env: {
          PATH: process.env.PATH,
          HOME: this.gitDir,
          GIT_DIR: this.gitDir,
          GIT_WORK_TREE: this.workTree,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`git ${args.join(' ')}: ${code}: ${err}`))));
    });
  }

  async init(): Promise<void> {
    fs.mkdirSync(this.gitDir, { recursive: true });
    await this.git(['init', '-q']);
  }

  /** `git add -A && git commit`: the checkpoint's id. */
  async checkpoint(): Promise<string> {
    await this.git(['add', '-A']);
    await this.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'checkpoint']);
    return (await this.git(['rev-parse', 'HEAD'])).trim();
  }

  /** A checkpoint of the state before, the files that differ, then the reset. */
  async restore(id: string): Promise<string[]> {
    await this.checkpoint();
    const changed = (await this.git(['diff', '--name-status', 'HEAD', id])).trim().split('\n');
    await this.git(['reset', '-q', '--hard', id]);
    return changed;
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const dir = tempDir();
  const ws = path.join(dir, 'ws');
  for (let i = 0; i < FOLDERS * FILES_PER_FOLDER; i++) {
    const file = path.join(ws, fileOf(i));
    if (i % FILES_PER_FOLDER === 0) fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, sourceOf(i));
  }
  fs.mkdirSync(path.join(ws, 'src', 'shared'));
  fs.writeFileSync(path.join(ws, 'src', 'shared', 'helpers.ts'), 'export const helper0 = (x: number) => x;\n');
  let version = 0;
  /** Changes the round's five files as an agent's edit would: one line each. */
  const change = (round: number) => {
    version++;
    for (const i of changedIn(round)) fs.writeFileSync(path.join(ws, fileOf(i)), sourceOf(i, version));
  };

  // First checkpoints and 5-file checkpoints, ours and the baseline's, interleaved.
  const ours = await CheckpointStore.open(path.join(dir, 'ours'), ws);
  const naive = new NaiveShadowGit(path.join(dir, 'naive.git'), ws);
  await naive.init();
  const firstOurs = await timed(() => ours.snapshot());
  const firstNaive = await timed(() => naive.checkpoint());
  if (firstOurs.value.fileCount !== FOLDERS * FILES_PER_FOLDER + 1) throw new Error(`the first checkpoint holds ${firstOurs.value.fileCount} files`);

  const checkpointOurs: number[] = [];
  const checkpointNaive: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    change(r);
    // Alternating who goes first, so neither always meets a cold cache.
    const runs = [
      async () => {
        const t = await timed(() => ours.snapshot());
        if (t.value.files.length !== CHANGED) throw new Error(`a checkpoint listed ${t.value.files.length} files`);
        checkpointOurs.push(t.ms);
      },
      async () => checkpointNaive.push((await timed(() => naive.checkpoint())).ms),
    ];
    for (const run of r % 2 === 0 ? runs : runs.reverse()) await run();
  }

  // Restores of 5 files: each changes them, then takes them back to the checkpoint before.
  const restoreOurs: number[] = [];
  const restoreNaive: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const back = (await ours.head()) as string;
    const backNaive = await naive.checkpoint();
    change(ROUNDS + r);
    const t = await timed(async () => {
      const plan = await ours.planRestore(back);
      await ours.applyRestore(plan);
      return plan;
    });
    if (t.value.changed.length !== CHANGED) throw new Error(`a restore changed ${t.value.changed.length} files`);
    restoreOurs.push(t.ms);
    change(ROUNDS + r);
    const n = await timed(() => naive.restore(backNaive));
    if (n.value.length !== CHANGED) throw new Error(`the baseline's restore changed ${n.value.length} files`);
    restoreNaive.push(n.ms);
  }

  // The stores' size after 100 turns of 5 small files each, fresh stores, two checkpoints a turn.
  const turnsOurs = await CheckpointStore.open(path.join(dir, 'turns-ours'), ws);
  const turnsNaive = new NaiveShadowGit(path.join(dir, 'turns-naive.git'), ws);
  await turnsNaive.init();
  await turnsOurs.snapshot();
  await turnsNaive.checkpoint();
  const afterFirst = { ours: sizeOf(path.join(dir, 'turns-ours')), naive: sizeOf(path.join(dir, 'turns-naive.git')) };
  const turnMs: number[] = [];
  for (let t = 0; t < TURNS; t++) {
    const t0 = performance.now();
    const start = await turnsOurs.snapshot();
    await turnsNaive.checkpoint();
    change(1_000 + t);
    await turnsOurs.snapshot({ diffFrom: start.checkpointId });
    await turnsNaive.checkpoint();
    turnMs.push(performance.now() - t0);
  }
  const afterTurns = { ours: sizeOf(path.join(dir, 'turns-ours')), naive: sizeOf(path.join(dir, 'turns-naive.git')) };
  fs.rmSync(dir, { recursive: true, force: true });

  const m = {
    firstOurs: firstOurs.ms,
    firstNaive: firstNaive.ms,
    checkpointOurs: median(checkpointOurs),
    checkpointNaive: median(checkpointNaive),
    restoreOurs: median(restoreOurs),
    restoreNaive: median(restoreNaive),
  };
  console.log(
    JSON.stringify({
      workspace: { files: FOLDERS * FILES_PER_FOLDER + 1, folders: FOLDERS + 1, changedPerRound: CHANGED, rounds: ROUNDS, turns: TURNS },
      note: 'ours: CheckpointStore (a bare shadow repository, its own index, blobs of a snapshot streamed into one pack, the packs repacked into one past PACKS_BEFORE_REPACK); naive: git add -A && git commit in a separate git dir with default settings (loose objects, and the gc --auto that commit runs past 6,700 of them), restore = a checkpoint, git diff --name-status and git reset --hard; medians of the rounds; sizes are disk usage (blocks, as du counts) of the store directory after a first checkpoint and then 100 turns of two checkpoints each',
      ms: {
        firstCheckpoint: { ours: round(m.firstOurs), naive: round(m.firstNaive), target: TARGET_FIRST_MS },
        checkpoint5Files: { ours: round(m.checkpointOurs), naive: round(m.checkpointNaive), target: TARGET_CHECKPOINT_MS },
        restore5Files: { ours: round(m.restoreOurs), naive: round(m.restoreNaive), target: TARGET_RESTORE_MS },
        // Both stores' two checkpoints and the edit; the slowest turn is the one where ours repacked.
        turnOfTwoCheckpoints: { both: round(median(turnMs)), slowest: round(Math.max(...turnMs)) },
      },
      sizeMiB: {
        afterFirstCheckpoint: { ours: mib(afterFirst.ours.diskBytes), naive: mib(afterFirst.naive.diskBytes) },
        after100Turns: { ours: mib(afterTurns.ours.diskBytes), naive: mib(afterTurns.naive.diskBytes) },
        growthOver100Turns: {
          ours: mib(afterTurns.ours.diskBytes - afterFirst.ours.diskBytes),
          naive: mib(afterTurns.naive.diskBytes - afterFirst.naive.diskBytes),
        },
        apparentAfter100Turns: { ours: mib(afterTurns.ours.bytes), naive: mib(afterTurns.naive.bytes) },
        filesAfter100Turns: { ours: afterTurns.ours.files, naive: afterTurns.naive.files },
      },
      ratios: {
        firstCheckpointNaiveOverOurs: round(m.firstNaive / m.firstOurs, 2),
        checkpointNaiveOverOurs: round(m.checkpointNaive / m.checkpointOurs, 2),
        restoreNaiveOverOurs: round(m.restoreNaive / m.restoreOurs, 2),
        sizeAfter100TurnsNaiveOverOurs: round(afterTurns.naive.diskBytes / afterTurns.ours.diskBytes, 2),
      },
      targets: targets({
        'first checkpoint of 10,000 files <= 5 s': m.firstOurs <= TARGET_FIRST_MS,
        'checkpoint with 5 changed files <= 300 ms': m.checkpointOurs <= TARGET_CHECKPOINT_MS,
        'restore of 5 files (plan + apply) <= 300 ms': m.restoreOurs <= TARGET_RESTORE_MS,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
