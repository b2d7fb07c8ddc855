// Codex 0.16x rollouts. (1) What reading a rollout's subagents with it costs a followed ingest: a
// day folder of 500 rollouts (each opening with a 22 KB session_meta line, as 0.169 writes it),
// the subagent rollouts of one looked for (its companions) cold (every head read once) and warm
// (the parents remembered), beside the followed run that appends 10 lines to that rollout.
// (2) A compressed rollout (.jsonl.zst, what Codex makes of one idle for a week) read against the
// same rollout plain: 20 MB. Target: warm lookup <= 10% of a followed run; .zst <= 3x plain.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { subagentRolloutsOf } from '../src/ingest/codex/rolloutFiles';
import { ingestionOf } from '../src/ingest/ingest';
import { readTranscript } from '../src/ingest/transcriptLines';
import { TapeStore } from '../src/store/tapeStore';
import { median, proseOf, round, targets, tempDir, time } from './common';

const ROLLOUTS = 500;
const ROUNDS = 7;
const BIG_BYTES = 20 << 20;
const id = (i: number): string => `019b0000-0000-7000-8000-${String(i).padStart(12, '0')}`;
const at = (i: number): string => new Date(Date.UTC(2026, 11, 1) + i * 1000).toISOString();

function rollout(i: number, lines: number, parent?: string): string {
  const meta = {
    id: id(i),
    cwd: '/w',
    cli_version: '0.169.1',
    base_instructions: { text: proseOf(i, 22_000) },
    ...(parent ? { parent_thread_id: parent } : {}),
  };
  const out = [JSON.stringify({ timestamp: at(0), type: 'session_meta', payload: meta })];
  for (let k = 1; out.length < lines; k++) out.push(line(k));
  return `${out.join('\n')}\n`;
}

function line(k: number): string {
  const payload =
    k % 2
      ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: proseOf(k, 400) }] }
      : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: proseOf(k, 400) }] };
  return JSON.stringify({ timestamp: at(k), type: 'response_item', payload });
}

async function main(): Promise<void> {
  const dir = tempDir();
  const day = path.join(dir, 'sessions', '2026', '12', '01');
  fs.mkdirSync(day, { recursive: true });
  const name = (i: number): string =>
    path.join(day, `rollout-2026-12-01T10-${String(Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}-${id(i)}.jsonl`);
  for (let i = 0; i < ROLLOUTS; i++) fs.writeFileSync(name(i), rollout(i, 40, i === 251 ? id(250) : undefined));
  const parent = name(250);

  const cold = time(() => subagentRolloutsOf(parent));
  const warm = median(Array.from({ length: ROUNDS }, () => time(() => subagentRolloutsOf(parent))));
  const store = await TapeStore.inMemory();
  const ingestion = ingestionOf(parent, 'codex');
  await ingestion.ingest(store);
  const followed: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    fs.appendFileSync(parent, `${Array.from({ length: 10 }, (_, k) => line(1000 + r * 10 + k)).join('\n')}\n`);
    const t0 = performance.now();
    await ingestion.ingest(store);
    followed.push(performance.now() - t0);
  }
  await store.close();

  const big = path.join(dir, 'big.jsonl');
  let text = rollout(0, 1);
  for (let k = 1; text.length < BIG_BYTES; k += 1000) text += `${Array.from({ length: 1000 }, (_, j) => line(k + j)).join('\n')}\n`;
  fs.writeFileSync(big, text);
  let zst: number | null = null;
  try {
    execFileSync('zstd', ['-q', '-f', '-3', big, '-o', `${big}.zst`]);
    zst = median(Array.from({ length: 3 }, () => time(() => readTranscript(`${big}.zst`))));
  } catch {
    // No zstd on this machine: the compressed read is not measured.
  }
  const plain = median(Array.from({ length: 3 }, () => time(() => readTranscript(big))));
  fs.rmSync(dir, { recursive: true, force: true });

  const follow = median(followed);
  console.log(
    JSON.stringify({
      rollouts: ROLLOUTS,
      subagentLookupColdMs: round(cold),
      subagentLookupWarmMs: round(warm),
      followedRunMs: round(follow),
      warmLookupShareOfFollowedRun: round(warm / follow),
      bigRolloutMB: round(BIG_BYTES / (1 << 20), 1),
      plainReadMs: round(plain),
      zstReadMs: zst === null ? null : round(zst),
      zstOverPlain: zst === null ? null : round(zst / plain),
      targets: targets({ 'warm lookup <= 10% of a followed run': warm <= follow * 0.1, '.zst read <= 3x plain': zst !== null && zst <= plain * 3 }),
    }),
  );
}

void main();
