// The tape's overhead on a turn: the same turn (the model reads a file, then streams a 2,000-token
// answer) run by the AgentSession on a real file tape (system prompt, fold cache, assembly and
// manifests, attempts, throttled revisions, journal) and by the bare loop against a no-op append
// target with a fixed request. Paced at 1 ms per token (1,000 tokens/s, faster than real servers,
// so the ratio is an upper bound); the unpaced pair gives the tape's absolute cost per turn.
import * as fs from 'fs';
import * as path from 'path';
import { AgentSession, defaultTools } from '../src/agent/agentSession';
import { OpenTape } from '../src/agent/session/openTape';
import { runTurn } from '../src/agent/loop';
import type { ModelRequest } from '../src/agent/model/modelPort';
import { NodeWorkspace } from '../src/agent/workspace/nodeWorkspace';
import { TapeStore } from '../src/store/tapeStore';
import { manifestOfEntry } from '../src/tape/manifest';
import { readThenAnswer, TOKENS } from './readThenAnswer';
import { median, proseOf, round, tempDir, targets } from './common';

const TOKEN_DELAY_MS = 1;
const ROUNDS = 11;
const UNPACED_ROUNDS = 25;
const SESSION = 'bench';

async function main(): Promise<void> {
  const dir = tempDir();
  const root = path.join(dir, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'notes.md'), proseOf(3, 4_000));
  const store = await TapeStore.open(path.join(dir, 'turn.tape.sqlite'));
  const environment = { os: 'linux', shell: '/bin/sh', workspaceRoot: root, date: '2026-11-30' };
  const permissions = { edits: false, commands: false };
  const workspace = new NodeWorkspace(root);
  const signal = new AbortController().signal;

  const withTape = async (delayMs: number): Promise<number> => {
    const session = new AgentSession({ tape: new OpenTape(store), sessionId: SESSION, model: readThenAnswer(delayMs), workspace, permissions, environment });
    const t0 = performance.now();
    const outcome = await session.runTurn('Summarise notes.md', { signal });
    if (outcome.outcome !== 'answer') throw new Error(`the tape turn ended with ${outcome.outcome}`);
    return performance.now() - t0;
  };

  // The no-op turn sends one fixed request: the first real turn's, with its manifest.
  const first = store.entries(SESSION).length;
  await withTape(0);
  const sample = store
    .entries(SESSION)
    .slice(first)
    .find((e) => e.name === 'view/assembled');
  if (sample === undefined) throw new Error('no manifest was written');
  const manifest = manifestOfEntry(sample);
  // The tape turn's own tool set, so the request's tools hash to the manifest's toolsHash.
  const tools = defaultTools();
  const request: ModelRequest = { messages: [{ role: 'user', content: 'Summarise notes.md' }], tools: tools.specs(), maxOutput: 4_000 };
  let turns = 0;
  const withoutTape = async (delayMs: number): Promise<number> => {
    const t0 = performance.now();
    const outcome = await runTurn(
      {
        tape: { appendMany: async () => undefined },
        sessionId: SESSION,
        newTurnId: () => `noop-${++turns}`,
        lastOrderSeq: () => 0,
        model: readThenAnswer(delayMs),
        tools,
        toolContext: { workspace, permissions },
        assemble: () => ({ request, manifest }),
        maxRounds: 20,
        signal,
      },
      { text: 'Summarise notes.md' },
    );
    if (outcome.outcome !== 'answer') throw new Error(`the no-op turn ended with ${outcome.outcome}`);
    return performance.now() - t0;
  };

  const pair = async (delayMs: number, rounds: number): Promise<{ tape: number; noop: number }> => {
    await withoutTape(delayMs);
    await withTape(delayMs);
    const tape: number[] = [];
    const noop: number[] = [];
    // Interleaved, so drift in the machine's speed hits both sides alike.
    for (let r = 0; r < rounds; r++) {
      noop.push(await withoutTape(delayMs));
      tape.push(await withTape(delayMs));
    }
    return { tape: median(tape), noop: median(noop) };
  };

  const unpaced = await pair(0, UNPACED_ROUNDS);
  const before = store.entries(SESSION).length;
  const paced = await pair(TOKEN_DELAY_MS, ROUNDS);
  const entriesPerTurn = (store.entries(SESSION).length - before) / (ROUNDS + 1);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  // The paced difference is within the timers' jitter (it can come out negative), so the target is
  // also checked with the tape's absolute cost, measured unpaced, against the paced turn.
  const pacedRatio = (paced.tape - paced.noop) / paced.noop;
  const tapeCostMs = unpaced.tape - unpaced.noop;
  const costRatio = tapeCostMs / paced.noop;
  console.log(
    JSON.stringify(
      {
        tokens: TOKENS,
        tokenDelayMs: TOKEN_DELAY_MS,
        rounds: ROUNDS,
        pacedMedianMs: { tape: round(paced.tape, 1), noop: round(paced.noop, 1) },
        pacedRatio: round(pacedRatio, 4),
        unpacedMedianMs: { tape: round(unpaced.tape, 2), noop: round(unpaced.noop, 2) },
        tapeCostMsPerTurn: round(tapeCostMs, 2),
        costRatio: round(costRatio, 4),
        // What the same absolute cost is beside a 50 tokens/s server's 40 s turn.
        ratioAt50TokensPerSecond: round(tapeCostMs / ((TOKENS / 50) * 1000), 5),
        entriesPerTurn: round(entriesPerTurn, 1),
        targets: targets({ 'tape overhead <= 2% of a paced 2,000-token turn': pacedRatio <= 0.02 && costRatio <= 0.02 }),
      },
      null,
      2,
    ),
  );
}

void main();
