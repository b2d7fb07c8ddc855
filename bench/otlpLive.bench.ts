// What live OpenTelemetry export adds to a turn: the same turn (the model reads a file, then
// streams a 2,000-token answer) on two tapes, one with a LiveOtlpExporter sending to a collector
// on 127.0.0.1 (a child process that takes every request), one without, in turn. Paced at 1 ms a
// token, the exporter's collections (a second after appends) fall inside the turn, as they would
// in use; the unpaced turn is shorter than that wait, so it shows the append listener's own cost.
// After each exported turn the rest of its spans are flushed outside the clock, and that flush's
// CPU time is what the exporter does on the extension host's thread for a turn, off the turn's
// path; on it is only the append listener, whose time is summed too. The medians' difference is
// within the machine's jitter (about 1 ms unpaced, tens of ms on a 2.3 s paced turn).
import * as fs from 'fs';
import * as path from 'path';
import { AgentSession } from '../src/agent/agentSession';
import { OpenTape } from '../src/agent/session/openTape';
import { NodeWorkspace } from '../src/agent/workspace/nodeWorkspace';
import { LiveOtlpExporter } from '../src/otel/liveExporter';
import { sessionSpans } from '../src/otel/otlpExport';
import { TapeStore } from '../src/store/tapeStore';
import { startCollector } from './collector';
import { readThenAnswer, TOKENS } from './readThenAnswer';
import { median, proseOf, round, targets, tempDir } from './common';

const TOKEN_DELAY_MS = 1;
const ROUNDS = Number(process.env.OTLP_LIVE_ROUNDS ?? 11);
const UNPACED_ROUNDS = Number(process.env.OTLP_LIVE_UNPACED_ROUNDS ?? 101);
const SESSION = 'bench';

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

async function main(): Promise<void> {
  const dir = tempDir();
  const root = path.join(dir, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'notes.md'), proseOf(3, 4_000));
  const collector = await startCollector();
  const off = await TapeStore.open(path.join(dir, 'off.tape.sqlite'));
  const on = await TapeStore.open(path.join(dir, 'on.tape.sqlite'));
  // The one thing the exporter does on a turn's path is its append listener: its time is summed here.
  let listenerMs = 0;
  const live = new LiveOtlpExporter(
    {
      store: on,
      onDidAppend: (l) =>
        on.onDidAppend((e) => {
          const t0 = performance.now();
          l(e);
          listenerMs += performance.now() - t0;
        }),
    },
    { endpoint: { url: collector.url, protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 }, tape: 'on.tape.sqlite' },
  );
  const environment = { os: 'linux', shell: '/bin/sh', workspaceRoot: root, date: '2026-12-06' };
  const workspace = new NodeWorkspace(root);
  const signal = new AbortController().signal;
  const flushCpu: number[] = [];

  const turn = async (store: TapeStore, delayMs: number): Promise<number> => {
    const session = new AgentSession({
      tape: new OpenTape(store),
      sessionId: SESSION,
      model: readThenAnswer(delayMs),
      workspace,
      permissions: { edits: false, commands: false },
      environment,
    });
    const t0 = performance.now();
    const outcome = await session.runTurn('Summarise notes.md', { signal });
    const ms = performance.now() - t0;
    if (outcome.outcome !== 'answer') throw new Error(`the turn ended with ${outcome.outcome}`);
    if (store === on) {
      const cpu = process.cpuUsage();
      await live.flush(10_000);
      flushCpu.push(cpuMs(cpu));
    }
    return ms;
  };

  const pair = async (delayMs: number, rounds: number): Promise<{ on: number; off: number }> => {
    await turn(off, delayMs);
    await turn(on, delayMs);
    const times = { on: [] as number[], off: [] as number[] };
    // Interleaved, each side first in every other round, so drift in the machine's speed and the order hit both alike.
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) times.off.push(await turn(off, delayMs));
      times.on.push(await turn(on, delayMs));
      if (r % 2 === 1) times.off.push(await turn(off, delayMs));
    }
    return { on: median(times.on), off: median(times.off) };
  };

  try {
    const unpaced = await pair(0, UNPACED_ROUNDS);
    const paced = await pair(TOKEN_DELAY_MS, ROUNDS);
    await live.dispose(10_000);
    const status = live.status();
    const turns = UNPACED_ROUNDS + ROUNDS + 2;
    const fileSpans = [...sessionSpans(on, { tape: 'on.tape.sqlite' })].reduce((n, s) => n + s.spans.length, 0);
    const added = { paced: paced.on - paced.off, unpaced: unpaced.on - unpaced.off };
    console.log(
      JSON.stringify(
        {
          tokens: TOKENS,
          rounds: { paced: ROUNDS, unpaced: UNPACED_ROUNDS },
          pacedMedianMs: { off: round(paced.off, 1), on: round(paced.on, 1) },
          pacedAddedMs: round(added.paced, 2),
          unpacedMedianMs: { off: round(unpaced.off, 2), on: round(unpaced.on, 2) },
          unpacedAddedMs: round(added.unpaced, 2),
          appendListenerMsPerTurn: round(listenerMs / turns, 4),
          exporterCpuMsPerTurn: round(median(flushCpu), 2),
          spansPerTurn: round(status.sentSpans / turns, 1),
          sent: { spans: status.sentSpans, requests: status.sentRequests, failedRequests: status.failedRequests, droppedSpans: status.droppedSpans },
          targets: targets({
            'every span of the file export sent live': status.sentSpans === fileSpans && status.droppedSpans === 0 && status.failedRequests === 0,
            "on the turn's path <= 1 ms a turn (the append listener)": listenerMs / turns <= 1,
          }),
        },
        null,
        2,
      ),
    );
  } finally {
    await off.close();
    await on.close();
    collector.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
