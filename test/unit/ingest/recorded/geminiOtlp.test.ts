import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sourceFormatOf } from '../../../../src/ingest/detect';
import { ingestFile } from '../../../../src/ingest/ingest';
import { parentOf } from '../../../../src/store/forks';
import { TapeStore } from '../../../../src/store/tapeStore';
import { ATTEMPT_EVENT, SUBAGENT_LINKED, TURN_START } from '../../../../src/tape/entryNames';
import { decodeOtlpTraces, type ReceivedSpan } from '../../../support/otlpReceiver';
import { calls } from '../foldedSession';

/**
 * The traces Gemini CLI 0.61.0 sent (test/fixtures/agents/gemini-cli-0.61.0-otlp, recorded by
 * `scripts/record-agents/gemini.mjs --telemetry`) ingested, against what a plain read of its spans finds.
 */

const FIXTURE = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'agents', 'gemini-cli-0.61.0-otlp', 'traces.jsonl');

/** Every span of the file, each line decoded as the OTLP/JSON request a collector received. */
function plainRead(): ReceivedSpan[] {
  const lines = fs
    .readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  return lines.flatMap((l) => decodeOtlpTraces(Buffer.from(l), 'application/json'));
}

type GeminiContent = { role: string; parts: { text?: string; thought?: boolean; functionCall?: { id?: string } }[] };
/** A `gen_ai.*.messages` attribute as Gemini CLI writes it: Gemini `Content`, one or a list. */
const contentsOf = (v: unknown): GeminiContent[] => {
  const parsed = JSON.parse(String(v)) as GeminiContent | GeminiContent[];
  return Array.isArray(parsed) ? parsed : [parsed];
};
const answerText = (s: ReceivedSpan): string =>
  contentsOf(s.attributes['gen_ai.output.messages'])
    .flatMap((c) => c.parts.filter((p) => p.text !== undefined && p.thought !== true).map((p) => p.text))
    .join('\n');

describe('ingest: Gemini CLI 0.61.0 as it sends its OpenTelemetry traces (recorded)', () => {
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-rec-gemini-otlp-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const told of ['--from otlp', 'told by content'])
    it(`maps every conversation, model request with its tokens, tool call with its result and subagent of the recording (${told})`, async () => {
      const file = path.join(dir, 'traces.jsonl');
      fs.copyFileSync(FIXTURE, file);
      // As the CLI tells a file named on its command line without --from.
      const from = told === '--from otlp' ? 'otlp' : sourceFormatOf(file)?.name;
      const spans = plainRead();
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const r = await ingestFile(store, file, from);
      assert.strictEqual(r.format, 'otlp');

      // One session per conversation, and one per subagent: an agent_call under the invoke_agent call.
      const conversations = [...new Set(spans.map((s) => String(s.attributes['gen_ai.conversation.id'])))];
      const agents = spans.filter((s) => s.name === 'agent_call' && byId.get(s.parentSpanId)?.attributes['gen_ai.tool.name'] === 'invoke_agent');
      assert.strictEqual(agents.length, 1);
      const sessionOf = (s: ReceivedSpan): string => {
        for (let at: ReceivedSpan | undefined = s; at !== undefined; at = byId.get(at.parentSpanId))
          if (agents.includes(at)) return `otlp:${String(at.attributes['gen_ai.conversation.id'])}/agent-${at.spanId}`;
        return `otlp:${String(s.attributes['gen_ai.conversation.id'])}`;
      };
      assert.deepStrictEqual([...r.sessions].sort(), [...conversations.map((c) => `otlp:${c}`), ...agents.map(sessionOf)].sort());
      for (const a of agents) assert.strictEqual(parentOf(store, sessionOf(a))?.sessionId, sessionOf(byId.get(a.parentSpanId)!));

      // Each llm_call a provider attempt in its session, with its model and the span's own token counts.
      const llmCalls = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'llm_call');
      assert.ok(llmCalls.length > 0);
      const attempts = r.sessions.flatMap((sessionId) =>
        store
          .entries(sessionId)
          .filter((e) => e.name === ATTEMPT_EVENT)
          .map((e) => {
            const d = e.payload.data as { model: string; status: string; usage: { inputTokens: number; outputTokens: number } };
            return [sessionId, d.model, d.status, d.usage.inputTokens, d.usage.outputTokens];
          }),
      );
      const expected = llmCalls.map((s) => [
        sessionOf(s),
        s.attributes['gen_ai.request.model'],
        'ok',
        s.attributes['gen_ai.usage.input_tokens'],
        s.attributes['gen_ai.usage.output_tokens'],
      ]);
      const order = (rows: unknown[][]) => rows.map((x) => JSON.stringify(x)).sort();
      assert.deepStrictEqual(order(attempts), order(expected));
      const sum = (rows: unknown[][], i: number) => rows.reduce((n, x) => n + Number(x[i]), 0);
      assert.strictEqual(sum(attempts, 3), sum(expected, 3));
      assert.strictEqual(sum(attempts, 4), sum(expected, 4));

      // Each tool_call span a call with its result, under its own call id, filed under the answer that asked for it.
      const toolCalls = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'tool_call');
      const paired = r.sessions.flatMap((sessionId) => calls(store, sessionId).map(([id, name, status]) => [sessionId, id, name, status]));
      assert.deepStrictEqual(
        order(paired),
        order(
          toolCalls.map((s) => [sessionOf(s), s.attributes['gen_ai.tool.call_id'], s.attributes['gen_ai.tool.name'], s.status.code === 2 ? 'error' : 'ok']),
        ),
      );
      for (const s of toolCalls) {
        const id = s.attributes['gen_ai.tool.call_id'];
        // A subagent's answers name no call ids: its call is the last answer's before it.
        const asker =
          llmCalls.find((m) => contentsOf(m.attributes['gen_ai.output.messages']).some((c) => c.parts.some((p) => p.functionCall?.id === id))) ??
          llmCalls.filter((m) => sessionOf(m) === sessionOf(s) && BigInt(m.endTimeUnixNano) <= BigInt(s.startTimeUnixNano)).at(-1);
        const call = store.entries(sessionOf(s)).find((e) => e.kind === 'tool_call' && e.payload.toolCallId === id);
        assert.strictEqual(call?.payload.messageId, asker?.spanId, `${String(id)} is filed under the answer that asked for it`);
        // Its arguments and what it answered the model, from Gemini CLI's request and completed call.
        const sent = JSON.parse(String(s.attributes['gen_ai.input.messages'])) as { args: unknown };
        assert.deepStrictEqual(call?.payload.input, sent.args);
        const done = JSON.parse(String(s.attributes['gen_ai.output.messages'])) as {
          response: { responseParts: { functionResponse: { response: { output: string } } }[] };
        };
        const result = store.entries(sessionOf(s)).find((e) => e.kind === 'tool_result' && e.payload.toolCallId === id);
        assert.strictEqual(result?.payload.output, done.response.responseParts[0].functionResponse.response.output);
        assert.notStrictEqual(result?.payload.output, '');
      }
      const links = r.sessions.flatMap((sessionId) => store.entries(sessionId).filter((e) => e.name === SUBAGENT_LINKED));
      assert.deepStrictEqual(
        links.map((e) => (e.payload.data as { toolCallId: string }).toolCallId),
        agents.map((a) => byId.get(a.parentSpanId)?.attributes['gen_ai.tool.call_id']),
      );
      // No span of the recording is an agent's turn but the subagent's.
      assert.strictEqual(r.sessions.flatMap((sessionId) => store.entries(sessionId).filter((e) => e.name === TURN_START)).length, agents.length);

      // Content (prompts are logged): each prompt typed, and each answer's text but its thoughts.
      const users = r.sessions.flatMap((sessionId) =>
        store
          .entries(sessionId)
          .filter((e) => e.name === 'message/user')
          .map((e) => String(e.payload.content)),
      );
      for (const prompt of ['Read a.txt and change hello to howdy', 'Run ls', 'Ask a subagent what b.txt says', 'Read the big file c.txt', 'Now say it again'])
        assert.ok(
          users.some((u) => u.endsWith(prompt)),
          `the prompt "${prompt}" is a user message`,
        );
      const answers = r.sessions.flatMap((sessionId) => store.entries(sessionId).filter((e) => e.name === 'message/assistant' && e.payload.content !== ''));
      assert.deepStrictEqual(
        answers.map((e) => String(e.payload.content)).sort(),
        llmCalls
          .map(answerText)
          .filter((t) => t !== '')
          .sort(),
      );
      assert.ok(!answers.some((e) => String(e.payload.content).includes('The user wants a.txt read first.')), 'a thought is no answer');

      const again = await ingestFile(store, file, from);
      assert.strictEqual(again.appended, 0);
    });
});
