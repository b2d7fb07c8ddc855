// `agent-tape otlp` of a tape of 10,000 model requests (OTLP_BENCH_REQUESTS) to a file, against a
// plain `export` of the same tape to `.tape.jsonl`: both read every entry and write a file, so the
// ratio is what the projection and the OpenTelemetry serialiser add. Each round runs both, in
// turn, on the tape opened read-only as the commands open it; then `otlp --endpoint` sends the
// same tape to a collector on 127.0.0.1 (another process), as OTLP/protobuf and as OTLP/JSON.
import * as fs from 'fs';
import * as path from 'path';
import type { OtlpProtocol } from '../src/otel/otlpEndpoint';
import { otlpJsonChunks, sendSessions } from '../src/otel/otlpExport';
import { OtlpSender } from '../src/otel/otlpSender';
import { writeFileDurably } from '../src/store/fsutil';
import { writeJsonl } from '../src/store/tapeFile';
import { TapeStore } from '../src/store/tapeStore';
import type { NewEntry } from '../src/tape/entry';
import { attemptEntry, messageEntry, toolCallEntry, toolResultEntry } from '../src/tape/turnEntries';
import { startCollector } from './collector';
import { median, round, tempDir } from './common';

const REQUESTS = Number(process.env.OTLP_BENCH_REQUESTS ?? 10_000);
const TURNS_PER_SESSION = 100;
const ROUNDS = Number(process.env.OTLP_BENCH_ROUNDS ?? 3);

/** One turn as our agent writes it: a prompt, a request with its usage, a tool call and result, an answer. */
function turn(sessionId: string, t: number, at: number): NewEntry[] {
  const ref = { sessionId, turnId: `t${t}` };
  const text = `turn ${t} ${'lorem ipsum dolor sit amet '.repeat(10)}`;
  const usage = { inputTokens: 1000 + t, outputTokens: 50, cachedInputTokens: 800, estimated: false };
  return [
    { ...messageEntry(ref, { messageId: `t${t}u`, role: 'user', status: 'sent', orderSeq: 2 * t, content: text }), createdAt: at },
    { ...attemptEntry(ref, 1, { attempt: 1, status: 'ok', retryDecision: 'none', durationMs: 900, usage }), createdAt: at + 1000 },
    { ...toolCallEntry(ref, `t${t}a`, `t${t}c`, 'read_file', { path: `f${t}.ts` }), createdAt: at + 1001 },
    { ...toolResultEntry(ref, `t${t}a`, `t${t}c`, 'read_file', { status: 'ok', output: text }), createdAt: at + 1100 },
    { ...messageEntry(ref, { messageId: `t${t}a`, role: 'assistant', status: 'sent', orderSeq: 2 * t + 1, content: text }), createdAt: at + 1200 },
  ];
}

async function main(): Promise<void> {
  const dir = tempDir();
  try {
    const tape = path.join(dir, 'bench.tape.sqlite');
    const build = await TapeStore.open(tape);
    for (let s = 0; s * TURNS_PER_SESSION < REQUESTS; s++) {
      const entries: NewEntry[] = [];
      for (let t = 0; t < TURNS_PER_SESSION; t++) entries.push(...turn(`s${s}`, t, 1_765_000_000_000 + s * 1e7 + t * 10_000));
      await build.appendMany(`s${s}`, entries);
    }
    await build.close();
    const store = await TapeStore.open(tape, { readOnly: true });
    const entries = store.sessions().reduce((n, s) => n + s.entryCount, 0);
    const times = { otlp: [] as number[], export: [] as number[] };
    let otlpBytes = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const jsonl = path.join(dir, `r${r}.tape.jsonl`);
      const otlp = path.join(dir, `r${r}.otlp.json`);
      let t0 = performance.now();
      await writeJsonl(store, null, jsonl, true);
      times.export.push(performance.now() - t0);
      t0 = performance.now();
      await writeFileDurably(otlp, otlpJsonChunks(store, { tape }), true);
      times.otlp.push(performance.now() - t0);
      otlpBytes = fs.statSync(otlp).size;
    }
    const collector = await startCollector();
    const sent: Record<OtlpProtocol, { ms: number[]; spans: number; dropped: number; mb: number }> = {
      'http/protobuf': { ms: [], spans: 0, dropped: 0, mb: 0 },
      'http/json': { ms: [], spans: 0, dropped: 0, mb: 0 },
    };
    try {
      for (let r = 0; r < ROUNDS; r++) {
        for (const protocol of ['http/protobuf', 'http/json'] as const) {
          const before = await collector.bytes();
          const sender = new OtlpSender({ url: collector.url, protocol, headers: {}, timeoutMs: 30_000 });
          const t0 = performance.now();
          await sendSessions(store, { tape }, sender);
          await sender.close(60_000);
          sent[protocol].ms.push(performance.now() - t0);
          const s = sender.status();
          sent[protocol].spans = s.sentSpans;
          sent[protocol].dropped = s.droppedSpans;
          sent[protocol].mb = round(((await collector.bytes()) - before) / (1 << 20), 1);
        }
      }
    } finally {
      collector.child.kill();
    }
    await store.close();
    const otlpMs = median(times.otlp);
    const endpoint = (p: OtlpProtocol) => ({
      ms: round(median(sent[p].ms), 1),
      spans: sent[p].spans,
      droppedSpans: sent[p].dropped,
      mb: sent[p].mb,
      ratioToFile: round(median(sent[p].ms) / otlpMs, 2),
    });
    const exportMs = median(times.export);
    process.stdout.write(
      JSON.stringify({
        requests: REQUESTS,
        entries,
        otlpMs: round(otlpMs, 1),
        otlpEntriesPerS: Math.round(entries / (otlpMs / 1000)),
        otlpMB: round(otlpBytes / (1 << 20), 1),
        baselineExportMs: round(exportMs, 1),
        baselineEntriesPerS: Math.round(entries / (exportMs / 1000)),
        ratioToExport: round(otlpMs / exportMs, 2),
        endpointProtobuf: endpoint('http/protobuf'),
        endpointJson: endpoint('http/json'),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
