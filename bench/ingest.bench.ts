// Ingest: a 3 MB, 1,500-line Claude Code transcript with its subagents onto a new file tape, and
// the re-ingest of the same files (every entry deduplicated). Target: <= 1 s for the first. And
// following: from a record the agent appends to the tape, and to an open inspector: <= 500 ms.
// Scaling: 10k and 80k lines of short records, read and ingested onto a tape in memory; the time
// must grow with the size (80k/10k about 8), not with its square.
import * as fs from 'fs';
import * as path from 'path';
import { followTranscripts } from '../src/ingest/follow';
import { ingestFile } from '../src/ingest/ingest';
import { readTranscript } from '../src/ingest/transcriptLines';
import { InspectorController } from '../src/inspector/inspectorController';
import { TapeStore } from '../src/store/tapeStore';
import { median, proseOf, round, targets, tempDir } from './common';
import { inspectorSource } from '../test/unit/inspector/inspectorSource';

const ROUNDS = 5;
const LINES = 1500;
const TARGET_BYTES = 3 << 20;
const SUBAGENTS = 5;
const SUBAGENT_LINES = 60;
const SESSION = '5b0c1d2e-0000-4000-8000-00000000bench';

/**
 * One turn every 4 lines: a prompt, an assistant text, a tool call (every 40th a Task starting a
 * subagent, with its progress record) and its result, with usage. Texts are sized so the file
 * comes to about 3 MB.
 */
function transcript(lines: number, sessionId: string, agentId?: string, per = Math.floor(TARGET_BYTES / LINES) - 350): string {
  const out: string[] = [];
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const base = (i: number) => ({
    uuid: `u${i}`,
    parentUuid: i ? `u${i - 1}` : null,
    sessionId,
    timestamp: at(i),
    isSidechain: agentId !== undefined,
    ...(agentId ? { agentId } : {}),
  });
  const usage = { input_tokens: 12, output_tokens: 300, cache_read_input_tokens: 40000, cache_creation_input_tokens: 800 };
  for (let i = 0; out.length < lines; i += 4) {
    const turn = i / 4;
    const task = agentId === undefined && turn % 40 === 0 && turn / 40 < SUBAGENTS;
    const msg = { id: `msg_${turn}`, role: 'assistant', model: 'claude-sonnet-4-5', usage };
    out.push(JSON.stringify({ type: 'user', ...base(i), message: { role: 'user', content: proseOf(i, per) } }));
    out.push(JSON.stringify({ type: 'assistant', ...base(i + 1), message: { ...msg, content: [{ type: 'text', text: proseOf(i + 1, per) }] } }));
    const input = task ? { prompt: proseOf(i + 2, 200), subagent_type: 'general-purpose' } : { command: proseOf(i + 2, 200) };
    out.push(
      JSON.stringify({
        type: 'assistant',
        ...base(i + 2),
        message: { ...msg, content: [{ type: 'tool_use', id: `toolu_${turn}`, name: task ? 'Task' : 'Bash', input }] },
      }),
    );
    if (task)
      out.push(
        JSON.stringify({
          type: 'progress',
          ...base(i + 2),
          uuid: `p${i}`,
          data: { type: 'agent_progress', agentId: `a${turn / 40}` },
          parentToolUseID: `toolu_${turn}`,
        }),
      );
    out.push(
      JSON.stringify({
        type: 'user',
        ...base(i + 3),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}`, content: proseOf(i + 3, per) }] },
      }),
    );
  }
  return `${out.slice(0, lines).join('\n')}\n`;
}

async function main(): Promise<void> {
  const dir = tempDir();
  const file = path.join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(file, transcript(LINES, SESSION));
  const sub = path.join(dir, SESSION, 'subagents');
  fs.mkdirSync(sub, { recursive: true });
  for (let a = 0; a < SUBAGENTS; a++) fs.writeFileSync(path.join(sub, `agent-a${a}.jsonl`), transcript(SUBAGENT_LINES, SESSION, `a${a}`));
  const bytes = fs.statSync(file).size + fs.readdirSync(sub).reduce((n, f) => n + fs.statSync(path.join(sub, f)).size, 0);

  const first: number[] = [];
  const again: number[] = [];
  let report;
  for (let r = 0; r < ROUNDS; r++) {
    const store = await TapeStore.open(path.join(dir, `r${r}.tape.sqlite`));
    let t0 = performance.now();
    report = await ingestFile(store, file);
    first.push(performance.now() - t0);
    t0 = performance.now();
    const second = await ingestFile(store, file);
    again.push(performance.now() - t0);
    if (second.appended !== 0) throw new Error(`re-ingest appended ${second.appended}`);
    await store.close();
  }
  const follow = await followLatency(dir, file);
  const scale = await scaling(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  const ms = round(median(first), 1);
  console.log(
    JSON.stringify({
      transcript: { lines: LINES, subagents: SUBAGENTS, subagentLines: SUBAGENT_LINES, totalBytes: bytes },
      entriesAppended: report?.appended,
      sessions: report?.sessions.length,
      medianMs: { ingest: ms, reIngest: round(median(again), 1), followToTape: follow.tape, followToInspector: follow.inspector },
      scaling: scale,
      targets: targets({ 'ingest <= 1 s': ms <= 1000, 'a followed record on the tape and in an open inspector <= 500 ms': follow.inspector <= 500 }),
    }),
  );
}

const SCALE_LINES = [10_000, 80_000];
const SCALE_TEXT_BYTES = 100;

/** Reading (parse only) and ingesting transcripts of SCALE_LINES lines: medians of 3, and the ratio of the largest to the smallest. */
async function scaling(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, { bytes: number; readMs: number; ingestMs: number }> = {};
  for (const lines of SCALE_LINES) {
    const file = path.join(dir, `scale-${lines}.jsonl`);
    fs.writeFileSync(file, transcript(lines, SESSION, undefined, SCALE_TEXT_BYTES));
    const read: number[] = [];
    const ingest: number[] = [];
    for (let r = 0; r < 3; r++) {
      let t0 = performance.now();
      readTranscript(file);
      read.push(performance.now() - t0);
      const store = await TapeStore.inMemory();
      t0 = performance.now();
      await ingestFile(store, file);
      ingest.push(performance.now() - t0);
      await store.close();
    }
    out[`${lines / 1000}k`] = { bytes: fs.statSync(file).size, readMs: round(median(read), 0), ingestMs: round(median(ingest), 0) };
  }
  const [small, large] = SCALE_LINES.map((n) => out[`${n / 1000}k`]);
  return {
    ...out,
    ratio: { read: round(large.readMs / small.readMs, 1), ingest: round(large.ingestMs / small.ingestMs, 1), lines: SCALE_LINES[1] / SCALE_LINES[0] },
  };
}

/**
 * `followTranscripts` on the transcript with an inspector open on its session: from a record
 * appended to the file to (a) the tape holding it and (b) the inspector posting it, medians of 5.
 */
async function followLatency(dir: string, file: string): Promise<{ tape: number; inspector: number }> {
  const store = await TapeStore.open(path.join(dir, 'follow.tape.sqlite'));
  await ingestFile(store, file);
  const sessionId = `claude-code:${SESSION}`;
  let appendedAt = 0;
  const inspector = new InspectorController(
    inspectorSource(store, 'bench', false),
    {
      post: (m) => {
        if (m.type === 'appended' && appendedAt === 0) appendedAt = performance.now();
      },
      copy: () => undefined,
      command: () => undefined,
    },
    { sessionId },
  );
  await inspector.handle({ type: 'ready' });
  const abort = new AbortController();
  const following = followTranscripts(store, [file], undefined, abort.signal, () => undefined);
  const toTape: number[] = [];
  const toInspector: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const head = store.headEntryId(sessionId);
    appendedAt = 0;
    const t0 = performance.now();
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: 'user', uuid: `f${i}`, parentUuid: null, sessionId: SESSION, timestamp: new Date().toISOString(), message: { role: 'user', content: `followed prompt ${i}` } })}\n`,
    );
    let onTape = 0;
    while (appendedAt === 0 && performance.now() - t0 < 5000) {
      if (onTape === 0 && store.headEntryId(sessionId) > head) onTape = performance.now();
      await new Promise((r) => setTimeout(r, 5));
    }
    toTape.push((onTape || appendedAt) - t0);
    toInspector.push(appendedAt - t0);
  }
  abort.abort();
  await following;
  inspector.dispose();
  await store.close();
  return { tape: round(median(toTape), 0), inspector: round(median(toInspector), 0) };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
