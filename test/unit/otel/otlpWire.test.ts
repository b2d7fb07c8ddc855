import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { sessionSpans, otlpJsonChunks, type OtlpExportOptions } from '../../../src/otel/otlpExport';
import { otlpJson, otlpProtobuf, readableSpans } from '../../../src/otel/otlpRequest';
import { REDACTED, secretMask } from '../../../src/otel/secretMask';
import { forkSession, mergeFork } from '../../../src/store/forks';
import { sessionAgentOf } from '../../../src/store/sessionAgent';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { turnsOf } from '../../../src/otel/genAiSpans';
import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import { attemptUsage } from '../../../src/tape/usage/usageStats';
import { postTraces, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../support/otlpReceiver';
import { cli } from '../cli/build';
import { recordTurns } from '../rerun/recordedTurns';

const AGENTS = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'agents');
const CLAUDE = path.join(AGENTS, 'claude-code-2.1.332', 'projects', '-tmp-rec-claude-code-Xe9TDk-proj', 'ee49c820-f55a-49cf-8703-89043c90e97a.jsonl');
const CODEX = path.join(AGENTS, 'codex-0.169.1', 'sessions', '2026', '12', '06', 'rollout-2026-12-06T12-30-19-01a24b55-6c37-7b13-9908-0d6c962bf2f7.jsonl');

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';
const OPERATIONS = new Set(['invoke_agent', 'chat', 'execute_tool']);
const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];
/** Key-shaped, so masked wherever it is; and a value only its variable's name marks as a secret. */
const KEY_CANARY = 'sk-canary-4fQ9zLw2Xb7Rt1Kp';
const ENV_CANARY = 'canary env value 7c1d';

const op = (s: ReceivedSpan): unknown => s.attributes['gen_ai.operation.name'];
const sessionOf = (s: ReceivedSpan): unknown => s.attributes['gen_ai.conversation.id'];

/**
 * Issue 37 on the wire: our serialised requests, a session a request as an exporter sends them,
 * POSTed to a loopback receiver that decodes them with the specification's own protos and JSON
 * mapping (test/support/otlpReceiver.ts). What it decodes is what a collector would see.
 */
describe('OTLP on the wire: our requests against the specification’s protos', function () {
  this.timeout(60_000);
  let receiver: OtlpReceiver;
  before(() => loadSqlJs());
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => {
    assert.deepStrictEqual(receiver.rejected, [], 'every body our serialisers wrote conforms');
    await receiver.close();
  });

  /** Each exported session as one request in `contentType`; the spans the receiver decoded, and the bodies sent. */
  async function send(store: TapeStore, contentType: string, options: Partial<OtlpExportOptions> = {}): Promise<{ spans: ReceivedSpan[]; bodies: Buffer[] }> {
    const from = receiver.requests.length;
    for (const { agent, spans } of sessionSpans(store, { tape: 't.tape.sqlite', ...options })) {
      const request = readableSpans(spans, agent);
      const answer = await postTraces(receiver.url, contentType === JSON_TYPE ? otlpJson(request) : otlpProtobuf(request), contentType);
      assert.strictEqual(answer.status, 200, answer.body.toString());
    }
    const received = receiver.requests.slice(from);
    return { spans: received.flatMap((r) => r.spans), bodies: received.map((r) => r.body) };
  }

  /** Both encodings decode to the same spans, and so does the file export's one request; returns them. */
  async function spansBothWays(store: TapeStore, options: Partial<OtlpExportOptions> = {}): Promise<ReceivedSpan[]> {
    const { spans } = await send(store, JSON_TYPE, options);
    assert.deepStrictEqual((await send(store, PROTOBUF_TYPE, options)).spans, spans);
    const file = Buffer.concat([...otlpJsonChunks(store, { tape: 't.tape.sqlite', ...options })]);
    assert.strictEqual((await postTraces(receiver.url, file, JSON_TYPE)).status, 200);
    assert.deepStrictEqual(receiver.requests[receiver.requests.length - 1].spans, spans);
    return spans;
  }

  /** The span tree a backend draws: parents in the same trace, a root turn per turn of a session of its own, the rest under their turn. */
  function assertTree(store: TapeStore, spans: ReceivedSpan[]): void {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    assert.strictEqual(byId.size, spans.length, 'span ids are unique');
    for (const s of spans) {
      assert.ok(OPERATIONS.has(String(op(s))), `${s.name}: gen_ai.operation.name ${String(op(s))}`);
      assert.strictEqual(s.serviceName, sessionAgentOf(store, String(sessionOf(s))), `${s.name}: service.name is its session's agent`);
      assert.ok(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano), `${s.name} ends after it starts`);
      if (s.parentSpanId === '') {
        assert.strictEqual(op(s), 'invoke_agent', `${s.name}: only a turn is a root`);
        continue;
      }
      const parent = byId.get(s.parentSpanId);
      assert.ok(parent !== undefined && parent.traceId === s.traceId, `${s.name}: its parent is a span of its trace`);
      if (op(s) === 'invoke_agent') assert.notStrictEqual(sessionOf(parent), sessionOf(s), `${s.name}: a turn under another session's span is a subagent's`);
      else assert.deepStrictEqual([op(parent), sessionOf(parent)], ['invoke_agent', sessionOf(s)], `${s.name}: under its session's turn`);
    }
  }

  /** The tape's turns and token totals of a session (its own entries, no merged copies among them). */
  function assertTurnsAndTokens(store: TapeStore, spans: ReceivedSpan[], sessionId: string): void {
    const own = spans.filter((s) => sessionOf(s) === sessionId);
    const entries = store.entries(sessionId);
    assert.strictEqual(own.filter((s) => op(s) === 'invoke_agent').length, turnsOf(entries).length, `${sessionId}: one invoke_agent a turn`);
    const sum = (key: string): number => own.reduce((n, s) => n + Number(s.attributes[key] ?? 0), 0);
    const usage = entries.filter((e) => e.kind === 'event' && e.name === ATTEMPT_EVENT).map(attemptUsage);
    assert.deepStrictEqual(
      [sum('gen_ai.usage.input_tokens'), sum('gen_ai.usage.output_tokens'), sum('gen_ai.usage.cache_read.input_tokens')],
      [
        usage.reduce((n, u) => n + (u?.inputTokens ?? 0), 0),
        usage.reduce((n, u) => n + (u?.outputTokens ?? 0), 0),
        usage.reduce((n, u) => n + (u?.cachedTokens ?? 0), 0),
      ],
      `${sessionId}: the tokens of its requests`,
    );
  }

  const ids = (spans: ReceivedSpan[]): string[] => spans.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId}`);

  for (const [agent, file, parentId, childId, spawnTool, provider] of [
    [
      'Claude Code 2.1.332',
      CLAUDE,
      'claude-code:ee49c820-f55a-49cf-8703-89043c90e97a',
      'claude-code:ee49c820-f55a-49cf-8703-89043c90e97a/agent-aa10981cfcb835eeb',
      'Agent',
      'anthropic',
    ],
    ['Codex 0.169.1', CODEX, 'codex:01a24b55-6c37-7b13-9908-0d6c962bf2f7', 'codex:01a24b55-6dd3-71f3-8c18-43420b5e8985', 'spawn_agent', 'openai'],
  ] as const) {
    it(`${agent}'s recording: the span tree, GenAI attributes and service, the same in JSON and protobuf and on every export`, async () => {
      const store = await TapeStore.inMemory();
      try {
        await ingestFile(store, file);
        const spans = await spansBothWays(store);
        assertTree(store, spans);
        for (const id of [parentId, childId]) assertTurnsAndTokens(store, spans, id);
        const spawn = spans.find((s) => sessionOf(s) === parentId && s.name === `execute_tool ${spawnTool}`) as ReceivedSpan;
        const childTurns = spans.filter((s) => sessionOf(s) === childId && op(s) === 'invoke_agent');
        assert.ok(childTurns.length > 0 && childTurns.every((t) => t.parentSpanId === spawn.spanId), "the subagent's turns are under its parent's tool span");
        const chats = spans.filter((s) => op(s) === 'chat');
        assert.ok(chats.length > 0);
        for (const c of chats) {
          assert.strictEqual(c.kind, 3, 'a model request is a CLIENT span');
          assert.strictEqual(c.attributes['gen_ai.provider.name'], provider);
          assert.match(String(c.attributes['gen_ai.request.model']), /\S/);
          assert.ok(Number(c.attributes['gen_ai.usage.input_tokens']) > 0 && Number(c.attributes['gen_ai.usage.output_tokens']) > 0, c.name);
        }
        assert.deepStrictEqual(new Set(spans.map((s) => s.serviceName)), new Set([sessionAgentOf(store, parentId)]));
        for (const s of spans) for (const key of CONTENT_KEYS) assert.ok(!(key in s.attributes), `${s.name} has no ${key} unless asked`);
        assert.deepStrictEqual(ids((await send(store, PROTOBUF_TYPE)).spans), ids(spans), 'an export again gives the same ids');
      } finally {
        await store.close();
      }
    });
  }

  describe("our agent's tape: a turn with a tool, a subagent under its call, a fork merged back", () => {
    let dir: string;
    let tape: string;
    let subagent: string;
    let fork: string;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otlp-wire-'));
      tape = path.join(dir, 'rec.tape.sqlite');
      await recordTurns(dir, 'mine', [
        {
          text: `Read notes.md please; my key is ${KEY_CANARY} and my pass is ${ENV_CANARY}`,
          steps: [
            [
              { text: 'Reading.' },
              { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md', why: `${KEY_CANARY} ${ENV_CANARY}` } } },
              { usage: { inputTokens: 120, outputTokens: 12, cachedInputTokens: 40 } },
            ],
            [{ text: `It says to build with esbuild. ${ENV_CANARY}` }, { usage: { inputTokens: 150, outputTokens: 9, cachedInputTokens: 100 } }],
          ],
        },
      ]);
      const store = await TapeStore.open(tape);
      try {
        const meta = { turnId: 't2' };
        const attempt = (turnId: string, input: number) => ({
          kind: 'event' as const,
          name: ATTEMPT_EVENT,
          payload: {
            name: ATTEMPT_EVENT,
            data: {
              turnId,
              requestSeq: 1,
              attempt: 1,
              status: 'ok',
              model: 'm-small',
              provider: 'openai',
              usage: { inputTokens: input, outputTokens: 3, cachedTokens: 0 },
            },
          },
          meta: { turnId },
        });
        const user = (turnId: string, text: string) => ({
          kind: 'message' as const,
          name: 'message/user',
          payload: { messageId: `${turnId}-u`, role: 'user', status: 'sent', orderSeq: 1, content: text, turnId },
          meta: { turnId },
        });
        await store.appendMany('mine', [
          user('t2', 'look around'),
          attempt('t2', 30),
          { kind: 'tool_call', name: 'run_subagent', payload: { messageId: 'a2', toolCallId: 'c9', name: 'run_subagent', input: { task: 'look' } }, meta },
        ]);
        subagent = (await startSubagent(store, 'mine', { task: 'look', toolCallId: 'c9' })).childSessionId;
        await store.appendMany(subagent, [user('ct', 'look'), attempt('ct', 7)]);
        await store.appendMany('mine', [
          { kind: 'tool_result', name: 'run_subagent', payload: { messageId: 'a2', toolCallId: 'c9', status: 'ok', output: 'done' }, meta },
        ]);
        await linkSubagent(store, 'mine', subagent, 'completed');
        fork = (await forkSession(store, 'mine', { forkId: 'alt' })).forkSessionId;
        await store.appendMany(fork, [user('t3', 'try another way'), attempt('t3', 50)]);
        await mergeFork(store, fork);
      } finally {
        await store.close();
      }
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const opened = async <T>(use: (store: TapeStore) => Promise<T>): Promise<T> => {
      const store = await TapeStore.open(tape, { readOnly: true });
      try {
        return await use(store);
      } finally {
        await store.close();
      }
    };

    it('the tree, tokens, provider and model, fork and merge links, one service; both encodings and every export agree', () =>
      opened(async (store) => {
        const spans = await spansBothWays(store);
        assertTree(store, spans);
        for (const id of [subagent, fork]) assertTurnsAndTokens(store, spans, id);
        const turns = (id: string) => spans.filter((s) => sessionOf(s) === id && op(s) === 'invoke_agent');
        assert.deepStrictEqual(
          [turns('mine').length, turns(subagent).length, turns(fork).length],
          [2, 1, 1],
          "the merged copies are the fork's spans, not the parent's",
        );
        const call = spans.find((s) => s.name === 'execute_tool run_subagent') as ReceivedSpan;
        assert.deepStrictEqual([turns(subagent)[0].parentSpanId, turns(subagent)[0].traceId], [call.spanId, call.traceId]);
        const chats = spans.filter((s) => op(s) === 'chat');
        assert.deepStrictEqual(
          chats
            .map((c) => [
              sessionOf(c),
              c.attributes['gen_ai.usage.input_tokens'],
              c.attributes['gen_ai.provider.name'] !== undefined,
              c.attributes['gen_ai.request.model'] !== undefined,
            ])
            .sort(),
          [
            ['mine', 120, true, true],
            ['mine', 150, true, true],
            ['mine', 30, true, true],
            [fork, 50, true, true],
            [subagent, 7, true, true],
          ].sort(),
        );
        // A fork is a trace of its own, linked both ways with the turn it left and the turn that took it back.
        const [forkTurn] = turns(fork);
        assert.notStrictEqual(forkTurn.traceId, call.traceId);
        const linked = (from: ReceivedSpan) => from.links.map((l) => spans.find((s) => s.traceId === l.traceId && s.spanId === l.spanId));
        assert.deepStrictEqual(
          linked(forkTurn).map((s) => sessionOf(s as ReceivedSpan)),
          ['mine'],
        );
        const merging = turns('mine').filter((t) => linked(t).some((s) => s === forkTurn));
        assert.strictEqual(merging.length, 1, "the merge links the parent's turn to the fork's last turn");
        assert.deepStrictEqual(new Set(spans.map((s) => s.serviceName)), new Set(['agent-tape']));
        assert.deepStrictEqual(ids((await send(store, PROTOBUF_TYPE)).spans), ids(spans), 'an export again gives the same ids');
      }));

    it('no content unless asked; with content, the canaries are masked in every body', () =>
      opened(async (store) => {
        const bare = await send(store, JSON_TYPE);
        for (const s of bare.spans) for (const key of CONTENT_KEYS) assert.ok(!(key in s.attributes), `${s.name} has no ${key} unless asked`);
        const canaries = (bodies: Buffer[]) => bodies.filter((b) => b.includes(KEY_CANARY) || b.includes(ENV_CANARY)).length;
        assert.strictEqual(canaries(bare.bodies), 0);
        // The canaries are there to find: unmasked content carries them.
        assert.ok(canaries((await send(store, PROTOBUF_TYPE, { content: true })).bodies) > 0);

        const mask = secretMask([ENV_CANARY]);
        for (const contentType of [JSON_TYPE, PROTOBUF_TYPE]) {
          const { spans, bodies } = await send(store, contentType, { content: true, mask });
          assert.strictEqual(canaries(bodies), 0, contentType);
          const present = new Set(spans.flatMap((s) => Object.keys(s.attributes)));
          for (const key of CONTENT_KEYS) assert.ok(present.has(key), `${contentType}: ${key} with content`);
          const masked = spans.filter((s) => Object.values(s.attributes).some((v) => String(v).includes(REDACTED))).map(op);
          assert.deepStrictEqual(
            [...new Set(masked)].sort(),
            ['execute_tool', 'invoke_agent'],
            `${contentType}: the message and the tool's arguments were masked`,
          );
        }

        // The CLI masks a variable's value by its name.
        process.env.CANARY_API_KEY = ENV_CANARY;
        try {
          const exported = await cli('otlp', tape, '--content');
          assert.strictEqual(exported.code, 0, exported.err);
          assert.strictEqual((await postTraces(receiver.url, exported.out, JSON_TYPE)).status, 200);
          const last = receiver.requests[receiver.requests.length - 1];
          assert.strictEqual(canaries([last.body]), 0);
          assert.ok(last.spans.some((s) => String(s.attributes['gen_ai.input.messages']).includes(REDACTED)));
        } finally {
          delete process.env.CANARY_API_KEY;
        }
      }));
  });
});
