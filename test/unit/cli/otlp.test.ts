import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import type { NewEntry } from '../../../src/tape/entry';
import { op, spansOf } from '../otel/otlpSpans';
import { cli } from './build';

const KEY = 'sk-canary0123456789abcdefCANARY';
const PASSWORD = 'correct-horse-canary-battery';
const DAY = Date.UTC(2026, 11, 6);

/** One turn of our agent's shape: a prompt, a request, a tool call and its result, an answer. */
function turn(turnId: string, at: number, prompt: string, input: unknown, status: 'ok' | 'error' = 'ok'): NewEntry[] {
  const meta = { turnId };
  return [
    {
      kind: 'message',
      name: 'message/user',
      payload: { messageId: `${turnId}u`, role: 'user', status: 'sent', orderSeq: at, content: prompt, turnId },
      meta,
      createdAt: at,
    },
    {
      kind: 'event',
      name: ATTEMPT_EVENT,
      payload: {
        name: ATTEMPT_EVENT,
        data: { turnId, requestSeq: 1, attempt: 1, status: 'ok', durationMs: 5, usage: { inputTokens: 50, outputTokens: 5, cachedTokens: 10 } },
      },
      meta,
      createdAt: at + 10,
    },
    {
      kind: 'tool_call',
      name: 'run_command',
      payload: { messageId: `${turnId}a`, toolCallId: `${turnId}c`, name: 'run_command', input },
      meta,
      createdAt: at + 11,
    },
    {
      kind: 'tool_result',
      name: 'run_command',
      payload: { messageId: `${turnId}a`, toolCallId: `${turnId}c`, status, output: `ran with ${KEY}` },
      meta,
      createdAt: at + 20,
    },
    { kind: 'error', name: 'error/provider', payload: { kind: 'provider', message: `refused ${PASSWORD}` }, meta, createdAt: at + 30 },
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
});
