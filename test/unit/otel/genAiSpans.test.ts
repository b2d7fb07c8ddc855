import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { forkSession, mergeFork } from '../../../src/store/forks';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import { ATTEMPT_EVENT, VIEW_ASSEMBLED } from '../../../src/tape/entryNames';
import { manifestOfEntry } from '../../../src/tape/manifest';
import { attemptUsage } from '../../../src/tape/usage/usageStats';
import { recordTurns } from '../rerun/recordedTurns';
import { exportText, op, spansOf, type ParsedSpan } from './otlpSpans';

const AGENTS = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'agents');
const CLAUDE = path.join(AGENTS, 'claude-code-2.1.332', 'projects', '-tmp-rec-claude-code-Xe9TDk-proj', 'ee49c820-f55a-49cf-8703-89043c90e97a.jsonl');
const CODEX = path.join(AGENTS, 'codex-0.169.1', 'sessions', '2026', '12', '06', 'rollout-2026-12-06T12-30-19-01a24b55-6c37-7b13-9908-0d6c962bf2f7.jsonl');

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const NANOS = /^\d{19}$/;

/** The spans of one session (by `gen_ai.conversation.id`). */
const ofSession = (spans: ParsedSpan[], sessionId: string): ParsedSpan[] => spans.filter((s) => s.attributes['gen_ai.conversation.id'] === sessionId);

/** What the tape's attempts of a session add up to, as the sessions view counts them. */
function tapeTotals(store: TapeStore, sessionId: string): { input: number; output: number; cached: number; written: number } {
  const t = { input: 0, output: 0, cached: 0, written: 0 };
  for (const e of store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT })) {
    const u = attemptUsage(e);
    if (u === null) continue;
    t.input += u.inputTokens;
    t.output += u.outputTokens;
    t.cached += u.cachedTokens;
    t.written += u.cacheCreationTokens;
  }
  return t;
}

function spanTotals(spans: ParsedSpan[]): { input: number; output: number; cached: number; written: number } {
  const sum = (k: string) => spans.reduce((n, s) => n + Number(s.attributes[k] ?? 0), 0);
  return {
    input: sum('gen_ai.usage.input_tokens'),
    output: sum('gen_ai.usage.output_tokens'),
    cached: sum('gen_ai.usage.cache_read.input_tokens'),
    written: sum('gen_ai.usage.cache_write.input_tokens'),
  };
}

describe('GenAI spans of a tape (src/otel)', function () {
  this.timeout(60_000);
  before(() => loadSqlJs());
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otel-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("our agent's turn: invoke_agent > chat per request (model, manifest hash, request parameters, tokens) and execute_tool; no content unless asked", async () => {
    await recordTurns(
      dir,
      'mine',
      [
        {
          text: 'Read notes.md please',
          steps: [
            [
              { text: 'Reading.' },
              { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } },
              { usage: { inputTokens: 120, outputTokens: 12, cachedInputTokens: 40 } },
            ],
            [{ text: 'It says to build with esbuild.' }, { usage: { inputTokens: 150, outputTokens: 9, cachedInputTokens: 100 } }],
          ],
        },
      ],
      { temperature: 0.2, seed: 7 },
    );
    const store = await TapeStore.open(path.join(dir, 'rec.tape.sqlite'), { readOnly: true });
    try {
      const spans = spansOf(exportText(store));
      assert.deepStrictEqual(spans.map((s) => s.name).sort(), ['chat scripted', 'chat scripted', 'execute_tool read_file', 'invoke_agent agent-tape'].sort());
      const [turn] = spans.filter((s) => op(s) === 'invoke_agent');
      assert.strictEqual(turn.parentSpanId, undefined);
      for (const s of spans) {
        assert.match(s.traceId, HEX32);
        assert.match(s.spanId, HEX16);
        assert.match(s.startTimeUnixNano, NANOS);
        assert.strictEqual(s.traceId, turn.traceId);
        assert.ok(typeof op(s) === 'string', `${s.name} has gen_ai.operation.name`);
        if (s !== turn) assert.strictEqual(s.parentSpanId, turn.spanId);
      }
      const chats = spans
        .filter((s) => op(s) === 'chat')
        .sort((a, b) => Number(a.attributes['agent_tape.entry_id']) - Number(b.attributes['agent_tape.entry_id']));
      const manifests = store.entries('mine', { kind: 'event', name: VIEW_ASSEMBLED }).map(manifestOfEntry);
      assert.deepStrictEqual(
        chats.map((c) => [c.attributes['gen_ai.request.model'], c.attributes['gen_ai.provider.name'], c.attributes['agent_tape.manifest_hash'], c.kind]),
        manifests.map((m) => [m.model.id, m.model.vendor, m.hashes.manifestHash, 3]),
      );
      // The parameters as sent: the output cap, and the sampling options the host set.
      assert.deepStrictEqual(
        chats.map((c) => [c.attributes['gen_ai.request.max_tokens'], c.attributes['gen_ai.request.temperature'], c.attributes['gen_ai.request.seed']]),
        manifests.map((m) => [m.params?.maxOutput, 0.2, 7]),
      );
      assert.ok(manifests.every((m) => typeof m.params?.maxOutput === 'number' && m.params.maxOutput > 0));
      assert.deepStrictEqual(
        chats.map((c) => [
          c.attributes['gen_ai.usage.input_tokens'],
          c.attributes['gen_ai.usage.output_tokens'],
          c.attributes['gen_ai.usage.cache_read.input_tokens'],
        ]),
        [
          [120, 12, 40],
          [150, 9, 100],
        ],
      );
      assert.deepStrictEqual(spanTotals(spans), tapeTotals(store, 'mine'));
      const text = exportText(store);
      for (const word of ['Read notes.md please', 'esbuild', 'notes.md', 'gen_ai.input.messages', 'gen_ai.tool.call.arguments'])
        assert.ok(!text.includes(word), word);
      const withContent = spansOf(exportText(store, { content: true }));
      const turnWith = withContent.find((s) => op(s) === 'invoke_agent') as ParsedSpan;
      assert.deepStrictEqual(JSON.parse(String(turnWith.attributes['gen_ai.input.messages'])), [
        { role: 'user', parts: [{ type: 'text', content: 'Read notes.md please' }] },
      ]);
      assert.match(String(turnWith.attributes['gen_ai.system_instructions']), /"content":"\S/);
      const tool = withContent.find((s) => op(s) === 'execute_tool') as ParsedSpan;
      assert.deepStrictEqual(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])), { path: 'notes.md' });
      assert.match(String(tool.attributes['gen_ai.tool.call.result']), /esbuild/);
    } finally {
      await store.close();
    }
  });

  it('Claude Code 2.1.332: the subagent is a child of its Agent call, in the same trace; tokens equal the tape', async () => {
    const store = await TapeStore.inMemory();
    await ingestFile(store, CLAUDE);
    const parentId = 'claude-code:ee49c820-f55a-49cf-8703-89043c90e97a';
    const childId = `${parentId}/agent-aa10981cfcb835eeb`;
    const spans = spansOf(exportText(store));
    const parent = ofSession(spans, parentId);
    const child = ofSession(spans, childId);
    const agentCall = parent.find((s) => s.name === 'execute_tool Agent') as ParsedSpan;
    const childTurns = child.filter((s) => op(s) === 'invoke_agent');
    assert.strictEqual(childTurns.length, 1);
    assert.strictEqual(childTurns[0].parentSpanId, agentCall.spanId);
    assert.ok([...parent, ...child].every((s) => s.traceId === agentCall.traceId));
    assert.deepStrictEqual(
      parent.filter((s) => op(s) === 'chat').map((s) => [s.name, s.attributes['gen_ai.provider.name'], s.attributes['gen_ai.response.id']]),
      [
        ['chat claude-opus-5-5', 'anthropic', 'msg_rec0007'],
        ['chat claude-opus-5-5', 'anthropic', 'msg_rec0008'],
        ['chat claude-opus-5-5', 'anthropic', 'msg_rec0011'],
      ],
    );
    assert.ok(spans.every((s) => s.service === 'claude-code'));
    for (const id of [parentId, childId]) assert.deepStrictEqual(spanTotals(ofSession(spans, id)), tapeTotals(store, id));
    assert.strictEqual(child.find((s) => op(s) === 'chat')?.attributes['gen_ai.usage.reasoning.output_tokens'], 14);
    // The older spelling, for backends that read only that.
    const old = spansOf(exportText(store, { cacheWriteName: 'cache_creation' })).find((s) => op(s) === 'chat') as ParsedSpan;
    assert.ok(typeof old.attributes['gen_ai.usage.cache_creation.input_tokens'] === 'number' && !('gen_ai.usage.cache_write.input_tokens' in old.attributes));
    await store.close();
  });

  it('Codex 0.169.1: chat per request with its tokens, the subagent under spawn_agent; two exports give the same ids', async () => {
    const store = await TapeStore.inMemory();
    await ingestFile(store, CODEX);
    const parentId = 'codex:01a24b55-6c37-7b13-9908-0d6c962bf2f7';
    const childId = 'codex:01a24b55-6dd3-71f3-8c18-43420b5e8985';
    const text = exportText(store);
    assert.strictEqual(exportText(store), text);
    const spans = spansOf(text);
    const parent = ofSession(spans, parentId);
    assert.deepStrictEqual(
      parent
        .filter((s) => op(s) === 'chat')
        .map((s) => [
          s.name,
          s.attributes['gen_ai.provider.name'],
          s.attributes['gen_ai.usage.input_tokens'],
          s.attributes['gen_ai.usage.reasoning.output_tokens'],
        ]),
      [
        ['chat gpt-5.5', 'openai', 1100, 21],
        ['chat gpt-5.5', 'openai', 1200, 22],
        ['chat gpt-5.5', 'openai', 1500, 25],
      ],
    );
    const spawn = parent.find((s) => s.name === 'execute_tool spawn_agent') as ParsedSpan;
    const childTurns = ofSession(spans, childId).filter((s) => op(s) === 'invoke_agent');
    assert.ok(childTurns.length > 0 && childTurns.every((t) => t.parentSpanId === spawn.spanId && t.traceId === spawn.traceId));
    for (const id of [parentId, childId]) assert.deepStrictEqual(spanTotals(ofSession(spans, id)), tapeTotals(store, id));
    await store.close();
  });

  it("our agent's subagent: under the run_subagent call its subagent/start names, else under the turn that linked it", async () => {
    const store = await TapeStore.inMemory();
    const meta = { turnId: 't1' };
    await store.appendMany('p', [
      { kind: 'message', name: 'message/user', payload: { messageId: 'u', role: 'user', status: 'sent', orderSeq: 1, content: 'go', turnId: 't1' }, meta },
      { kind: 'tool_call', name: 'run_subagent', payload: { messageId: 'a', toolCallId: 'c9', name: 'run_subagent', input: {} }, meta },
    ]);
    const called = await startSubagent(store, 'p', { task: 'look', toolCallId: 'c9' });
    const bare = await startSubagent(store, 'p', { task: 'look again' });
    for (const child of [called, bare]) {
      await store.appendMany(child.childSessionId, [
        {
          kind: 'message',
          name: 'message/user',
          payload: { messageId: 'cu', role: 'user', status: 'sent', orderSeq: 1, content: 'look', turnId: 'ct' },
          meta: { turnId: 'ct' },
        },
      ]);
    }
    await store.appendMany('p', [
      { kind: 'tool_result', name: 'run_subagent', payload: { messageId: 'a', toolCallId: 'c9', status: 'ok', output: 'done' }, meta },
    ]);
    await linkSubagent(store, 'p', called.childSessionId, 'completed');
    await linkSubagent(store, 'p', bare.childSessionId, 'completed');
    const spans = spansOf(exportText(store));
    const call = spans.find((s) => s.name === 'execute_tool run_subagent') as ParsedSpan;
    const parentTurn = ofSession(spans, 'p').find((s) => op(s) === 'invoke_agent') as ParsedSpan;
    const childTurn = (id: string) => ofSession(spans, id).find((s) => op(s) === 'invoke_agent') as ParsedSpan;
    assert.deepStrictEqual([childTurn(called.childSessionId).parentSpanId, childTurn(called.childSessionId).traceId], [call.spanId, call.traceId]);
    assert.deepStrictEqual([childTurn(bare.childSessionId).parentSpanId, childTurn(bare.childSessionId).traceId], [parentTurn.spanId, parentTurn.traceId]);
    await store.close();
  });

  it('a fork links to the turn it was forked from, a merge to the fork, and merged requests are not counted twice', async () => {
    const store = await TapeStore.inMemory();
    const turn = (turnId: string, text: string, tokens: number) => [
      {
        kind: 'message' as const,
        name: 'message/user',
        payload: { messageId: `${turnId}-u`, role: 'user', status: 'sent', orderSeq: tokens, content: text, turnId },
        meta: { turnId },
      },
      {
        kind: 'event' as const,
        name: ATTEMPT_EVENT,
        payload: {
          name: ATTEMPT_EVENT,
          data: { turnId, requestSeq: 1, attempt: 1, status: 'ok', usage: { inputTokens: tokens, outputTokens: 1, cachedTokens: 0 } },
        },
        meta: { turnId },
      },
      {
        kind: 'message' as const,
        name: 'message/assistant',
        payload: { messageId: `${turnId}-a`, role: 'assistant', status: 'sent', orderSeq: tokens + 1, content: 'ok', turnId },
        meta: { turnId },
      },
    ];
    await store.appendMany('p', [
      { kind: 'anchor', name: 'session/start', provenanceKey: 'session/start', payload: { name: 'session/start', state: {} } },
      ...turn('t1', 'one', 10),
    ]);
    const fork = await forkSession(store, 'p', { forkId: 'alt' });
    await store.appendMany(fork.forkSessionId, turn('t2', 'two', 20));
    await mergeFork(store, fork.forkSessionId);
    const spans = spansOf(exportText(store));
    const pTurns = ofSession(spans, 'p').filter((s) => op(s) === 'invoke_agent');
    const fTurns = ofSession(spans, fork.forkSessionId).filter((s) => op(s) === 'invoke_agent');
    assert.strictEqual(pTurns.length, 1, 'the merged copies are the fork spans, not the parent');
    assert.strictEqual(fTurns.length, 1);
    assert.notStrictEqual(fTurns[0].traceId, pTurns[0].traceId);
    assert.deepStrictEqual(
      fTurns[0].links.map((l) => [l.traceId, l.spanId]),
      [[pTurns[0].traceId, pTurns[0].spanId]],
    );
    assert.deepStrictEqual(
      pTurns[0].links.map((l) => [l.traceId, l.spanId]),
      [[fTurns[0].traceId, fTurns[0].spanId]],
    );
    assert.deepStrictEqual(
      spans
        .filter((s) => op(s) === 'chat')
        .map((s) => s.attributes['gen_ai.usage.input_tokens'])
        .sort(),
      [10, 20],
    );
    await store.close();
  });
});
