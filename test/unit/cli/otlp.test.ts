import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ANTHROPIC_BASIS, tapeUsage } from '../../../src/ingest/tapeUsage';
import { TapeStore } from '../../../src/store/tapeStore';
import type { JsonObject, NewEntry } from '../../../src/tape/entry';
import { attemptEntry, messageEntry, providerErrorEntry, toolCallEntry, toolResultEntry } from '../../../src/tape/turnEntries';
import { op, spansOf } from '../otel/otlpSpans';
import { cli } from './build';

const KEY = 'sk-canary0123456789abcdefCANARY';
const PASSWORD = 'correct-horse-canary-battery';
const DAY = Date.UTC(2026, 11, 6);

/** One turn of our agent's shape: a prompt, a request, a tool call and its result, a provider error. */
function turn(turnId: string, at: number, prompt: string, input: unknown, status: 'ok' | 'error' = 'ok'): NewEntry[] {
  const ref = { sessionId: 's', turnId };
  const usage = { inputTokens: 50, outputTokens: 5, cachedInputTokens: 10, estimated: false };
  return [
    { ...messageEntry(ref, { messageId: `${turnId}u`, role: 'user', status: 'sent', orderSeq: at, content: prompt }), createdAt: at },
    { ...attemptEntry(ref, 1, { attempt: 1, status: 'ok', retryDecision: 'none', durationMs: 5, usage }), createdAt: at + 10 },
    { ...toolCallEntry(ref, `${turnId}a`, `${turnId}c`, 'run_command', input), createdAt: at + 11 },
    { ...toolResultEntry(ref, `${turnId}a`, `${turnId}c`, 'run_command', { status, output: `ran with ${KEY}` }), createdAt: at + 20 },
    { ...providerErrorEntry(ref, 1, { message: `refused ${PASSWORD}`, failureClass: 'refused', transient: false }), createdAt: at + 30 },
  ];
}

/** A request whose usage was ingested from Claude Code: 7 tokens written to the prompt cache. */
function cacheWritingTurn(at: number): NewEntry[] {
  const ref = { sessionId: 'cc', turnId: 'c1' };
  const attempt = attemptEntry(ref, 1, { attempt: 1, status: 'ok', retryDecision: 'none', durationMs: 5 });
  const usage = tapeUsage({ input: 40, output: 5, cacheRead: 10, cacheWrite: 7 }, ANTHROPIC_BASIS);
  return [
    { ...messageEntry(ref, { messageId: 'c1u', role: 'user', status: 'sent', orderSeq: 1, content: 'cache it' }), createdAt: at },
    { ...attempt, payload: { ...attempt.payload, data: { ...(attempt.payload.data as JsonObject), usage } }, createdAt: at + 10 },
  ];
}

describe('agent-tape otlp', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  const saved = { ...process.env };
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otlp-'));
    tape = path.join(dir, 'w.tape.sqlite');
    process.env.OTLP_CANARY_API_KEY = KEY;
    process.env.OTLP_CANARY_PASSWORD = PASSWORD;
    const store = await TapeStore.open(tape);
    await store.appendMany('s', [
      ...turn('t1', DAY - 60_000, 'PROMPT-ONE', { command: `curl -H "Authorization: Bearer ${KEY}"`, note: PASSWORD }, 'error'),
      ...turn('t2', DAY + 60_000, 'second', { command: 'ls' }),
    ]);
    await store.close();
  });
  afterEach(() => {
    process.env = { ...saved };
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes one OTLP/JSON request to stdout: the span tree, errors as status, no content and no secret', async () => {
    const r = await cli('otlp', tape);
    assert.strictEqual(r.code, 0, r.err);
    const spans = spansOf(r.out);
    assert.deepStrictEqual(spans.map(op), ['invoke_agent', 'chat', 'execute_tool', 'invoke_agent', 'chat', 'execute_tool']);
    assert.deepStrictEqual(
      spans.map((s) => [s.status.code, s.status.message]),
      [
        [2, 'error/provider'],
        [0, undefined],
        [2, 'the tool failed'],
        [2, 'error/provider'],
        [0, undefined],
        [0, undefined],
      ],
    );
    const chat = spans[1];
    assert.deepStrictEqual([chat.startTimeUnixNano, chat.endTimeUnixNano], [`${DAY - 60_000 + 5}000000`, `${DAY - 60_000 + 10}000000`]);
    for (const secret of [KEY, PASSWORD, 'curl', 'PROMPT-ONE', 'ran with']) assert.ok(!r.out.includes(secret), secret);
  });

  it('--content adds messages and tool arguments and results, with secret variables and key-shaped text masked', async () => {
    const r = await cli('otlp', tape, '--content');
    assert.strictEqual(r.code, 0, r.err);
    assert.ok(!r.out.includes(KEY) && !r.out.includes(PASSWORD));
    const spans = spansOf(r.out);
    const tool = spans[2];
    assert.deepStrictEqual(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])), {
      command: 'curl -H "Authorization: Bearer [redacted]"',
      note: '[redacted]',
    });
    assert.strictEqual(tool.attributes['gen_ai.tool.call.result'], 'ran with [redacted]');
    assert.strictEqual(spans[0].status.message, 'refused [redacted]');
    assert.match(String(spans[0].attributes['gen_ai.input.messages']), /PROMPT-ONE/);
  });

  it('--since keeps the turns from that UTC day on; --session names sessions; --out writes a new file and refuses an existing one', async () => {
    const since = await cli('otlp', tape, '--since', '2026-12-06');
    const kept = spansOf(since.out);
    assert.deepStrictEqual([kept.length, kept.filter((s) => op(s) === 'invoke_agent').map((s) => s.attributes['agent_tape.turn_id'])], [3, ['t2']]);
    assert.strictEqual((await cli('otlp', tape, '--since', '2026-13-01')).code, 2);
    assert.strictEqual((await cli('otlp', tape, '--session', 'nope')).code, 2);
    const out = path.join(dir, 'spans.json');
    assert.strictEqual((await cli('otlp', tape, '--session', 's', '--out', out)).code, 0);
    assert.strictEqual(fs.readFileSync(out, 'utf8'), (await cli('otlp', tape)).out);
    fs.writeFileSync(out, 'mine');
    const again = await cli('otlp', tape, '--out', out);
    assert.strictEqual(again.code, 2);
    assert.match(again.err, /already exists/);
    assert.strictEqual(fs.readFileSync(out, 'utf8'), 'mine');
  });

  it("--cache-tokens spells the cache-write count as asked; cache_write, the conventions' current name, unless asked; another value is a usage error", async () => {
    const store = await TapeStore.open(tape);
    await store.appendMany('cc', cacheWritingTurn(DAY + 120_000));
    await store.close();
    const chatOf = async (...flags: string[]) => {
      const r = await cli('otlp', tape, '--session', 'cc', ...flags);
      assert.strictEqual(r.code, 0, r.err);
      return spansOf(r.out).filter((s) => op(s) === 'chat');
    };
    const cacheAttributes = (spans: { attributes: Record<string, unknown> }[]) =>
      spans.map((s) => Object.entries(s.attributes).filter(([k]) => /^gen_ai\.usage\.cache_(creation|write)\./.test(k)));
    assert.deepStrictEqual(cacheAttributes(await chatOf()), [[['gen_ai.usage.cache_write.input_tokens', 7]]]);
    assert.deepStrictEqual(cacheAttributes(await chatOf('--cache-tokens', 'cache_creation')), [[['gen_ai.usage.cache_creation.input_tokens', 7]]]);
    assert.deepStrictEqual(cacheAttributes(await chatOf('--cache-tokens=cache_write')), [[['gen_ai.usage.cache_write.input_tokens', 7]]]);
    const out = path.join(dir, 'bad.json');
    const bad = await cli('otlp', tape, '--cache-tokens', 'cache_writes', '--out', out);
    assert.strictEqual(bad.code, 2);
    assert.match(bad.err, /--cache-tokens must be one of cache_write, cache_creation, got "cache_writes"/);
    assert.ok(!fs.existsSync(out), 'nothing written');
  });
});
