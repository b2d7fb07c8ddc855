// OTLP ingest: a file exporter's JSONL of 2,500 turns (each an invoke_agent, 4 chat requests with
// content and tokens, 3 tool calls: 10,000 model requests, 20,000 spans) onto a tape in memory,
// then read again (every entry deduplicated). Baseline side by side: JSON.parse of the same lines,
// so `spansOverParse` is what checking and decoding the spans costs on top of reading them. And a
// hostile file of a million values that are no spans: its read against JSON.parse of it.
// Targets: the first ingest <= 10 s; checking the spans <= 4x parsing them; the hostile file <= 3x.
import * as fs from 'fs';
import * as path from 'path';
import { ingestFile } from '../src/ingest/ingest';
import { readSpans } from '../src/ingest/otlp/otlpSpans';
import { TapeStore } from '../src/store/tapeStore';
import { median, proseOf, round, targets, tempDir, time } from './common';

const TURNS = 2500;
const REQUESTS_PER_TURN = 4;
const HOSTILE_VALUES = 1_000_000;

const value = (v: string | number) => (typeof v === 'string' ? { stringValue: v } : { intValue: String(v) });
const attrs = (a: Record<string, string | number>) => Object.entries(a).map(([key, v]) => ({ key, value: value(v) }));
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');

/** One turn as one trace request, a line of the file. */
function turnLine(t: number): string {
  const traceId = hex(t + 1, 32);
  const at = (ms: number) => String((1_764_000_000_000n + BigInt(t * 60_000 + ms)) * 1_000_000n);
  const conv = { 'gen_ai.conversation.id': `conv-${Math.floor(t / 25)}` };
  let id = t * 100;
  const agent = ++id;
  const span = (spanId: number, name: string, start: number, end: number, a: Record<string, string | number>, parent?: number) => ({
    traceId,
    spanId: hex(spanId, 16),
    parentSpanId: parent === undefined ? '' : hex(parent, 16),
    name,
    kind: 1,
    startTimeUnixNano: at(start),
    endTimeUnixNano: at(end),
    attributes: attrs(a),
    status: { code: 0 },
  });
  const spans = [span(agent, 'invoke_agent copilot', 0, 50_000, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'copilot', ...conv })];
  for (let r = 0; r < REQUESTS_PER_TURN; r++) {
    const base = 1000 + r * 10_000;
    spans.push(
      span(
        ++id,
        'chat gpt-4o',
        base,
        base + 4000,
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 12_000 + r,
          'gen_ai.usage.output_tokens': 300,
          'gen_ai.usage.cache_read.input_tokens': 10_000,
          ...conv,
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: proseOf(t, 400) }] }]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: proseOf(t * 7 + r, 600) }] }]),
        },
        agent,
      ),
    );
    if (r < REQUESTS_PER_TURN - 1)
      spans.push(
        span(
          ++id,
          'execute_tool readFile',
          base + 4100,
          base + 4500,
          {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'readFile',
            'gen_ai.tool.call.arguments': '{"filePath":"src/a.ts"}',
            'gen_ai.tool.call.result': proseOf(t + r, 800),
          },
          agent,
        ),
      );
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: attrs({ 'service.name': 'copilot-chat' }) }, scopeSpans: [{ spans }] }] });
}

async function main(): Promise<void> {
  const dir = tempDir();
  const file = path.join(dir, 'traces.jsonl');
  const lines = Array.from({ length: TURNS }, (_, t) => turnLine(t));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);

  const store = await TapeStore.inMemory();
  let start = performance.now();
  const first = await ingestFile(store, file, 'otlp');
  const firstMs = performance.now() - start;
  start = performance.now();
  const again = await ingestFile(store, file, 'otlp');
  const againMs = performance.now() - start;
  await store.close();

  const parseMs = median(
    Array.from({ length: 3 }, () =>
      time(() =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .forEach((l) => JSON.parse(l)),
      ),
    ),
  );
  const spansMs = median(Array.from({ length: 3 }, () => time(() => readSpans(file, {}))));

  const hostile = path.join(dir, 'hostile.json');
  fs.writeFileSync(hostile, `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(HOSTILE_VALUES).fill('{"traceId":1}').join(',')}]}]}]}`);
  const hostileParseMs = median(Array.from({ length: 3 }, () => time(() => JSON.parse(fs.readFileSync(hostile, 'utf8')))));
  const hostileMs = median(Array.from({ length: 3 }, () => time(() => readSpans(hostile, {}))));
  fs.rmSync(dir, { recursive: true, force: true });

  console.log(
    JSON.stringify({
      turns: TURNS,
      requests: TURNS * REQUESTS_PER_TURN,
      fileMB: round(lines.reduce((n, l) => n + l.length + 1, 0) / (1 << 20), 1),
      firstIngestMs: round(firstMs),
      appended: first.appended,
      reingestMs: round(againMs),
      reingestAppended: again.appended,
      parseMs: round(parseMs),
      spansMs: round(spansMs),
      spansOverParse: round(spansMs / parseMs),
      hostileValues: HOSTILE_VALUES,
      hostileParseMs: round(hostileParseMs),
      hostileReadMs: round(hostileMs),
      hostileOverParse: round(hostileMs / hostileParseMs),
      targets: targets({
        'first ingest <= 10 s': firstMs <= 10_000,
        'spans <= 4x parse': spansMs <= parseMs * 4,
        'hostile <= 3x parse': hostileMs <= hostileParseMs * 3,
      }),
    }),
  );
}

void main();
